import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { machine, managed, removeDir, tempDir, writeFixturePackage } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { LEGACY_INITIALIZE, MODERN_META } from "@rukh/testkit/mcp";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { buildExamples, EXAMPLE_PUB, EXAMPLE_PUBLISHER } from "../scripts/examples.mjs";

type DeclaredResult = { kind: string; schema?: object };
type OwnerConfigJson = { mcp?: { endpoints?: Record<string, object> } } & Record<string, unknown>;

// What an agent's client is sent, with the built CLI over real pipes, in the
// demo's state: the examples built, signed, trusted, installed, exposed and
// allowed to the agent preset, as `pnpm demo` does.
const work = tempDir("rukh-agent-surface-");
const examples: { commands: { summary: string; execute: { result: DeclaredResult } }[] } =
  JSON.parse(
    readFileSync(
      new URL("../../../fixtures/extensions/acme-tools/rukh-extension.json", import.meta.url),
      "utf8",
    ),
  );
const home = join(work, "home");
const rukh = (...args: string[]) => runCli({ args, stateDir: home });
const ok = (...args: string[]) => {
  const r = rukh(...args);
  expect(r.status, `rukh ${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
};

beforeAll(async () => {
  const packages: Record<string, string> = await buildExamples(join(work, "packages"));
  ok("trust", "add", EXAMPLE_PUB, "--publisher", EXAMPLE_PUBLISHER);
  for (const dir of Object.values(packages)) ok("ext", "install", dir);
  ok("expose", "add", "acme.tools");
  ok("preset", "allow", "default", "--action", "compute");
  ok("preset", "allow", "agent", "acme.tools/*", "--action", "compute");
}, 120_000);
afterAll(() => removeDir(work));

type Wire = { id?: unknown; result?: Record<string, unknown>; error?: unknown };

/** The answers of `rukh mcp serve <args>` to `messages`, each found by its id. */
function served(args: readonly string[], messages: readonly object[]): Wire[] {
  const r = runCli({
    args: ["mcp", "serve", ...args],
    stateDir: home,
    input: messages.map((m) => `${JSON.stringify(m)}\n`).join(""),
  });
  expect(r.status, r.stderr).toBe(0);
  const got = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Wire);
  return messages.map((m) => got.find((g) => g.id === (m as { id: unknown }).id)!);
}

type Tool = Record<string, unknown> & { name: string };
/** The tools `rukh mcp serve <args>` lists (one page holds them). */
function listed(args: readonly string[]): Tool[] {
  const [list] = served(args, [
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } },
  ]);
  expect(list!.result!.nextCursor).toBeUndefined();
  return list!.result!.tools as Tool[];
}

/** Publishes the configuration with `edit` applied to it. */
function editConfig(edit: (config: OwnerConfigJson) => void): void {
  const config = JSON.parse(ok("--json", "profile", "show").stdout).result.config;
  edit(config);
  const file = join(work, `config-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(config));
  ok("profile", "set-config", file);
}

describe("the agent's list costs what it must", () => {
  it("sends the demo's agent tools at 1,350 bytes each or less, without a schema dialect, each with its closed envelope", () => {
    const tools = listed(["--preset", "agent"]);
    expect(tools).toHaveLength(4);
    const bytes = tools.map((t) => Buffer.byteLength(JSON.stringify(t)));
    const mean = bytes.reduce((a, b) => a + b, 0) / bytes.length;
    console.log(`agent tools: ${bytes.join(", ")} bytes; mean ${mean.toFixed(0)}`);
    expect(mean).toBeLessThanOrEqual(1_350);
    for (const t of tools) expect(t.inputSchema).not.toHaveProperty("$schema");
    // Every tool lists its closed envelope; a structured result's data schema inside it, as declared.
    const declared = new Map<string, DeclaredResult>(
      examples.commands.map((c) => [c.summary, c.execute.result]),
    );
    for (const t of tools) {
      const result = declared.get(t.title as string)!;
      const schema = t.outputSchema as {
        additionalProperties: boolean;
        then: unknown;
        properties: { commandResult: { properties: { data?: unknown; kind: unknown } } };
      };
      expect(schema).toMatchObject({
        additionalProperties: false,
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
        then: { required: ["commandResult"] },
      });
      if (result.kind === "structured")
        expect(schema.properties.commandResult.properties.data).toEqual(result.schema);
      else expect(schema.properties.commandResult.properties.kind).toEqual({ const: "text" });
    }
  });

  it("sends an endpoint's instructions when a client connects, in either era", () => {
    const instructions = "Greet people with greet; stats summarizes numbers.";
    editConfig((c) => {
      c.mcp = {
        ...c.mcp,
        endpoints: { ...c.mcp?.endpoints, guided: { preset: "agent", instructions } },
      };
    });
    const [init, discover] = served(
      ["--endpoint", "guided"],
      [
        {
          jsonrpc: "2.0",
          id: "init",
          method: "initialize",
          params: LEGACY_INITIALIZE,
        },
        {
          jsonrpc: "2.0",
          id: "discover",
          method: "server/discover",
          params: { _meta: MODERN_META },
        },
      ],
    );
    expect(init!.result!.instructions).toBe(instructions);
    expect(discover!.result!.instructions).toBe(instructions);
    const [plain] = served(
      ["--preset", "agent"],
      [{ jsonrpc: "2.0", id: "d", method: "server/discover", params: { _meta: MODERN_META } }],
    );
    expect(plain!.result).not.toHaveProperty("instructions");
  });
});

describe("client-fit names", () => {
  it("keep the extension's last word and the command, fit behind mcp__rukh__, and a stale one reaches nothing", () => {
    const created = ok("mcp", "config", "--client", "claude-code");
    expect(created.stderr).toContain("created endpoint claude-code");
    const names = listed(["--endpoint", "claude-code"]).map((t) => t.name);
    expect(names).toHaveLength(4);
    for (const name of names) {
      expect(name).toMatch(/^tools_[a-z]+__[g-z]{1,4}[0-9a-f]{4,12}$/);
      expect(`mcp__rukh__${name}`.length).toBeLessThanOrEqual(64);
    }
    const greet = names.find((n) => n.startsWith("tools_greet__"))!;
    const call = (name: string) => ({
      jsonrpc: "2.0",
      id: "call",
      method: "tools/call",
      params: { name, arguments: { name: "Ada" }, _meta: MODERN_META },
    });
    // The name reaches its command (input ends at once, so the call itself is cancelled).
    const [answer] = served(["--endpoint", "claude-code"], [call(greet)]);
    expect(answer!.error).toBeUndefined();
    expect(answer!.result!.structuredContent).toMatchObject({ invocationId: expect.any(String) });
    // Any publication names every tool anew; the old name is unknown, not another tool.
    editConfig((c) => {
      c.mcp = { ...c.mcp, endpoints: { ...c.mcp?.endpoints, later: { preset: "agent" } } };
    });
    const renamed = listed(["--endpoint", "claude-code"]).map((t) => t.name);
    expect(renamed).not.toContain(greet);
    const [stale] = served(["--endpoint", "claude-code"], [call(greet)]);
    expect(stale!.error).toEqual({ code: -32602, message: "Unknown tool" });
  });
});

describe("annotations", () => {
  it("carry the publisher's hints, the owner's per preset, and openWorldHint false where the preset is strict", async () => {
    const notes = await writeFixturePackage({
      parent: work,
      descriptor: {
        format: "rukh.extension/3",
        id: "acme.notes",
        version: "1.0.0",
        publisher: "acme",
        commands: [
          {
            id: "fetch",
            path: ["notes", "fetch"],
            summary: "Fetch the team's notes",
            execute: managed({ kind: "text" }, "bin/notes.mjs"),
            machine: machine(),
            hints: { readOnly: true, openWorld: true },
          },
        ],
      },
      programs: {
        "bin/notes.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "acme.notes/fetch": async () => textResult("notes") } });
`,
      },
    });
    ok("ext", "install", notes);
    ok("expose", "add", "acme.notes");
    ok("preset", "allow", "agent", "acme.notes/*", "--action", "compute");
    ok("preset", "allow", "default", "acme.notes/*", "--action", "compute");
    editConfig((c) => {
      const presets = c.presets as Record<string, Record<string, unknown>>;
      presets.default!.hints = { "acme.tools/stats": { readOnly: true, idempotent: true } };
      // Served to an agent below, so the owner consents to it.
      presets.default!.agentConsent = "agents may fetch notes and summarize numbers, as me";
    });
    const byTitle = (tools: Tool[]) => new Map(tools.map((t) => [t.title, t.annotations]));
    // agent is strict: its commands run without a network, whatever their publisher says.
    const agent = byTitle(listed(["--preset", "agent"]));
    expect(agent.get("Fetch the team's notes")).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect(agent.get("Summarize a list of numbers")).toEqual({ openWorldHint: false });
    // default is host-trusted: the publisher's word, or the owner's for this preset.
    const trusted = byTitle(listed(["--preset", "default"]));
    expect(trusted.get("Fetch the team's notes")).toEqual({
      readOnlyHint: true,
      openWorldHint: true,
    });
    expect(trusted.get("Summarize a list of numbers")).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(trusted.get("Greet someone")).toBeUndefined();
    // tools list shows each tool as the preset's server sends it.
    const cli = JSON.parse(ok("--json", "tools", "list", "--preset", "agent").stdout).result.tools;
    expect(cli.find((t: Tool) => t.identity === "acme.notes/fetch").annotations).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
  });
});

describe("tools list --check", () => {
  const encoder = new Tiktoken(o200kBase);

  it("reports each tool as its endpoint sends it, with an estimate no lower than a real tokenizer's count, and passes", () => {
    const r = rukh("--json", "tools", "list", "--check", "--endpoint", "claude-code");
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout).result;
    const sent = new Map(listed(["--endpoint", "claude-code"]).map((t) => [t.name, t]));
    expect(report.tools).toHaveLength(sent.size);
    for (const t of report.tools) {
      const text = JSON.stringify(sent.get(t.name));
      expect(t.bytes).toBe(Buffer.byteLength(text));
      const real = encoder.encode(text).length;
      expect(t.tokens).toBeGreaterThanOrEqual(real);
      expect(t.tokens).toBeLessThanOrEqual(Math.ceil(real * 1.5));
      expect(t.names["claude-code"]).toBe(`mcp__rukh__${t.name}`.length);
      expect(t.problems).toEqual([]);
    }
    expect(report.over).toBe(0);
    const human = ok("tools", "list", "--check", "--endpoint", "claude-code").stdout;
    expect(human).toMatch(
      /^tools_greet__\S+ {2}\d+ bytes, ~\d+ tokens, name \d+\/64 with mcp__rukh__/m,
    );
    expect(human).toContain(
      `${sent.size} tools checked for preset agent at endpoint claude-code: none over`,
    );
  });

  it("exits 4 and names what is over: the owner's budget, and full names behind a client's prefix", () => {
    const budget = rukh(
      "tools",
      "list",
      "--check",
      "--endpoint",
      "claude-code",
      "--max-bytes",
      "500",
    );
    expect(budget.status).toBe(4);
    expect(budget.stdout).toMatch(
      /tools_stats__\S+ .*\n {2}over: the tool is \d+ bytes; the budget is 500/,
    );
    const full = rukh("--json", "tools", "list", "--check", "--preset", "agent");
    expect(full.status).toBe(4);
    const problems = JSON.parse(full.stdout).result.tools[0].problems;
    expect(
      problems.map((p: { code: string; client: string }) => [p.code, p.client]),
    ).toContainEqual(["name_too_long", "claude-code"]);
    // Budgets belong to a check.
    const loose = rukh("tools", "list", "--max-bytes", "500");
    expect(loose.status).toBe(2);
    expect(loose.stderr).toContain("--max-bytes needs --check");
  });
});
