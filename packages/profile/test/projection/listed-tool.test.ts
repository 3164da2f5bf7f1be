import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { listTools, type McpTool, StateDirectory } from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

// What a listed tool carries: what a client and a model need of it, and no
// more. The host still decodes and validates every input and every result in
// full; the listing only describes them.
const work = tempDir();

const COUNT = {
  type: "object",
  properties: { n: { type: "integer", minimum: 0, description: "How many" } },
  required: ["n"],
  additionalProperties: false,
};

async function listed(): Promise<Map<string, McpTool>> {
  const h = new StateDirectory(tempDir("rukh-listing-"));
  await h.setConfig(ownerConfig() as never);
  const d = descriptor("acme.files", "acme", [{ id: "text" }, { id: "count" }]) as {
    commands: { execute: { result: object } }[];
  };
  d.commands[1]!.execute.result = { kind: "structured", schema: COUNT };
  const r = await h.install(await makePackage(work, d));
  const page = listTools(r.projection, { preset: "default", cursorKey: await h.cursorKey() });
  return new Map(page.tools.map((t) => [t.identity, JSON.parse(JSON.stringify(t))]));
}

/** Envelopes of every outcome a call of `commandResult`'s command can end in. */
const envelopes = (commandResult: object) => [
  { invocationId: "i", outcome: "succeeded", reason: "completed", commandResult },
  {
    invocationId: "i",
    outcome: "succeeded",
    reason: "completed",
    commandResult,
    effects: ["wrote a.txt"],
  },
  { invocationId: "i", outcome: "rejected", reason: "invalid_input" },
  { invocationId: "i", outcome: "command_failed", reason: "command_reported" },
  { invocationId: "i", outcome: "execution_failed", reason: "invalid_result" },
  { invocationId: "i", outcome: "cancelled", reason: "deadline" },
];

describe("a listed tool", () => {
  it("names no schema dialect: JSON Schema 2020-12 is MCP's default", async () => {
    for (const t of (await listed()).values()) {
      expect(t.inputSchema).not.toHaveProperty("$schema");
      expect(t.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
    }
  });

  it("declares the closed envelope as every tool's output schema, a text result's too", async () => {
    const tools = await listed();
    for (const [identity, declared] of [
      ["acme.files/text", { kind: "text", text: "hello" }],
      ["acme.files/count", { kind: "structured", data: { n: 3 } }],
    ] as const) {
      const schema = tools.get(identity)!.outputSchema!;
      expect(schema).toMatchObject({
        type: "object",
        required: ["invocationId", "outcome"],
        additionalProperties: false,
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
        then: { required: ["commandResult"] },
      });
      const v = new Validator(schema as never, "2020-12");
      const ok = {
        invocationId: "i",
        outcome: "succeeded",
        reason: "completed",
        commandResult: declared,
      };
      expect(v.validate(ok).valid, identity).toBe(true);
      // A member the core does not send, and a success without its result: not valid.
      expect(v.validate({ ...ok, extra: 1 }).valid, identity).toBe(false);
      const { commandResult: _, ...bare } = ok;
      expect(v.validate(bare).valid, identity).toBe(false);
    }
  });

  it("describes every envelope a call can end in, and still refuses data the declaration refuses", async () => {
    const schema = (await listed()).get("acme.files/count")!.outputSchema!;
    const v = new Validator(schema as never, "2020-12");
    for (const e of envelopes({ kind: "structured", data: { n: 3 } }))
      expect(v.validate(e).valid, JSON.stringify(e)).toBe(true);
    for (const data of [{ n: -1 }, { n: "3" }, {}, { n: 1, extra: true }])
      expect(v.validate(envelopes({ kind: "structured", data })[0]).valid).toBe(false);
  });
});
