import { describe, expect, it } from "vitest";
import { checkTool, estimateTokens } from "../src/admin/_tools-check.js";

// `tools list --check`, one tool at a time: what it costs, what each known
// client can take of it, and the owner's budget.
const tool = (over: Record<string, unknown> = {}) => ({
  name: "tools_greet__n7159",
  identity: "acme.tools/greet",
  title: "Greet someone",
  description: "Returns a greeting as text.",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    additionalProperties: false,
  },
  ...over,
});
const LIMITED = ["claude-code", "claude-desktop", "vscode", "cursor", "codex"] as const;

describe("checking one listed tool", () => {
  it("measures the tool as a client receives it and finds nothing over", () => {
    const t = tool();
    const { identity, ...wire } = t;
    const c = checkTool(t, { server: "rukh" });
    expect(c.bytes).toBe(Buffer.byteLength(JSON.stringify(wire)));
    expect(c.tokens).toBe(estimateTokens(c.bytes));
    expect(Object.keys(c.names).sort()).toEqual([...LIMITED].sort());
    for (const client of LIMITED)
      expect(c.names[client]).toBe("mcp__rukh__".length + t.name.length);
    expect(c.problems).toEqual([]);
  });

  it("estimates tokens as a third of the bytes, rounded up", () => {
    expect([0, 1, 3, 4, 900].map(estimateTokens)).toEqual([0, 1, 1, 2, 300]);
  });

  it("names each client whose prefix makes the name too long", () => {
    const c = checkTool(tool(), { server: "a-server-name-of-forty-characters-really" });
    expect(c.problems.map((p) => [p.code, p.client])).toEqual(
      LIMITED.map((client) => ["name_too_long", client]),
    );
    expect(c.problems[0]!.message).toBe(
      'with its prefix "mcp__a-server-name-of-forty-characters-really__" the name has 65 characters; claude-code takes at most 64',
    );
  });

  it("says which client cuts a long description, and where", () => {
    const c = checkTool(tool({ description: "d".repeat(2_049) }), { server: "rukh" });
    expect(c.problems).toEqual([
      {
        code: "description_cut",
        client: "claude-code",
        message: "the description has 2049 characters; claude-code gives its model the first 2048",
      },
    ]);
  });

  it("names schema features a known client cannot take", () => {
    const rooted = tool({
      inputSchema: { type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }] },
    });
    expect(checkTool(rooted, { server: "rukh" }).problems.map((p) => [p.code, p.client])).toEqual([
      ["schema_feature", "claude-code"],
      ["schema_feature", "claude-desktop"],
      ["schema_feature", "codex"],
    ]);
    const nested = tool({
      inputSchema: {
        type: "object",
        properties: { when: { anyOf: [{ type: "string" }, { type: "integer" }] } },
      },
    });
    const problems = checkTool(nested, { server: "rukh" }).problems;
    expect(problems).toEqual([
      {
        code: "schema_feature",
        client: "codex",
        message:
          "the input schema uses anyOf at /properties/when; codex gives its model a string there",
      },
    ]);
  });

  it("holds the owner's budget in bytes and in tokens", () => {
    const c = checkTool(tool(), { server: "rukh", maxBytes: 100, maxTokens: 10 });
    expect(c.problems.map((p) => p.code)).toEqual(["over_bytes", "over_tokens"]);
    expect(c.problems[0]!.message).toBe(`the tool is ${c.bytes} bytes; the budget is 100`);
  });
});
