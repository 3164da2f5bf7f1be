import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawSession, toolNameOf, useState } from "../_helpers.js";

const at = useState();
let greet: string;
let sum: string;
let hidden: string;
let session: RawSession;

beforeAll(async () => {
  greet = await toolNameOf(at.state, "fx.main/greet");
  sum = await toolNameOf(at.state, "fx.main/sum");
  hidden = await toolNameOf(at.state, "fx.hidden/secret");
  session = new RawSession(at.root, "narrow");
});

afterAll(async () => {
  await session?.close();
});

describe("2026-07-28 per request", () => {
  it("answers server/discover with caching hints and serverInfo", async () => {
    const r = await session.request(1, "server/discover");
    expect(r.result).toEqual({
      supportedVersions: ["2026-07-28"],
      // No legacy capabilities.tasks: the tasks extension is how 2026-07-28 offers tasks.
      capabilities: {
        tools: { listChanged: true },
        extensions: { "io.modelcontextprotocol/tasks": {} },
      },
      ttlMs: 0,
      cacheScope: "private",
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "rukh", version: "0.1.0" } },
    });
  });

  it("lists only what the preset may see", async () => {
    const r = await session.request(2, "tools/list");
    expect(r.result.tools.map((t: { name: string }) => t.name)).toEqual([greet]);
    expect(r.result).toMatchObject({ ttlMs: 0, cacheScope: "private", resultType: "complete" });
    // A text result's tool lists its closed envelope too: what a call returns.
    expect(Object.keys(r.result.tools[0]).sort()).toEqual([
      "description",
      "inputSchema",
      "name",
      "outputSchema",
      "title",
    ]);
    expect(r.result.tools[0].outputSchema).toMatchObject({ additionalProperties: false });
  });

  it("calls a visible tool", async () => {
    const r = await session.request(3, "tools/call", { name: greet, arguments: { name: "ann" } });
    expect(r.result.isError).toBe(false);
    expect(r.result.structuredContent).toMatchObject({
      outcome: "succeeded",
      reason: "completed",
      commandResult: { kind: "text", text: "hello ann" },
    });
    expect(JSON.parse(r.result.content[0].text)).toEqual(r.result.structuredContent);
  });

  it.each([
    ["invisible", () => sum],
    ["other extension", () => hidden],
    ["unknown", () => `nope__${"0".repeat(16)}`],
  ])("answers a %s name with the one unknown-tool error", async (_what, name) => {
    const r = await session.request(`u-${_what}`, "tools/call", { name: name(), arguments: {} });
    expect(r.error).toEqual({ code: -32602, message: "Unknown tool" });
  });
});
