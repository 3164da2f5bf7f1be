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

  it("declares no output schema for a text result: the envelope is in its first text block", async () => {
    const t = (await listed()).get("acme.files/text")!;
    expect(t).not.toHaveProperty("outputSchema");
  });

  it("declares a structured result's data as the publisher wrote it, inside the least envelope", async () => {
    const t = (await listed()).get("acme.files/count")!;
    expect(t.outputSchema).toEqual({
      type: "object",
      properties: { commandResult: { type: "object", properties: { data: COUNT } } },
    });
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
