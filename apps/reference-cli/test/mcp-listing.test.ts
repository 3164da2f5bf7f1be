import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  commandsDescriptor,
  fixtureOwnerConfig,
  fixturePreset,
  fixtureState,
  removeDir,
  writeFixturePackage,
} from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { buildExamples } from "../scripts/examples.mjs";
import { mcpRequests, toolCall } from "./_author.js";

// What an agent is shown is what it can run, from the built CLI: a command
// that may interact runs (its question gets no answer, as on the CLI with
// no terminal), a tool whose requested action the preset lacks is not
// listed, and an endpoint that could never list its tools is not published.
const at = { work: "", root: "" };
const preset = (over: object = {}) =>
  fixturePreset({
    commands: ["acme.tools/*", "fx.ask/*"],
    actions: ["compute"],
    deadlineMs: 30_000,
    ...over,
  });

beforeAll(async () => {
  const made = await fixtureState({
    prefix: "rukh-cli-listing-",
    config: fixtureOwnerConfig({
      endpointNamespace: "acme-cli-listing",
      exposure: { extensions: ["acme.tools", "fx.ask"] },
      presets: {
        default: preset(),
        agent: preset(),
        tools: preset({ commands: ["acme.tools/*"] }),
      },
    }),
    packages: async (work) => {
      const examples: Record<string, string> = await buildExamples(join(work, "examples"));
      const descriptor = commandsDescriptor("fx.ask", "1.0.0", [
        { id: "ask", interaction: "optional" },
      ]) as { commands: { description?: string }[] };
      // A long description: its tool alone takes more than a 5000-byte answer can carry.
      descriptor.commands[0]!.description = "Asks a person whether to go on. ".repeat(110);
      const ask = await writeFixturePackage({
        parent: work,
        descriptor,
        programs: {
          // It asks a person on stdin; with no one there, it goes on without an answer.
          "bin/commands.mjs": `import { readFileSync } from "node:fs";
import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.ask/ask": () => {
  const answer = readFileSync(0, "utf8");
  return textResult(answer === "" ? "no one to ask: going on without an answer" : "answered " + answer);
} } });
`,
        },
      });
      return [examples["acme-tools"]!, ask];
    },
    install: "each",
  });
  at.work = made.work;
  at.root = made.root;
}, 60_000);
afterAll(() => removeDir(at.work));

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", RUKH_HOME: at.root });
/** The CLI with stdin from /dev/null, as a script or a service runs it. */
const rukh = (...args: string[]) => runCli({ args, stateDir: at.root, stdin: "ignore" });
const list = (cursor?: string) => ({
  method: "tools/list",
  params: { ...(cursor !== undefined && { cursor }), _meta: MODERN_META },
});
/** Tool names by identity, as the CLI lists them for a preset. */
function namesFor(preset: string): Map<string, string> {
  const listed = rukh("--json", "tools", "list", "--preset", preset);
  expect(listed.status, listed.stderr).toBe(0);
  return new Map(
    JSON.parse(listed.stdout).result.tools.map((t: { identity: string; name: string }) => [
      t.identity,
      t.name,
    ]),
  );
}
/** The names one `tools/list` of a server bound to `preset` answers with. */
async function listedOverMcp(preset: string): Promise<string[]> {
  const [reply] = await mcpRequests(env(), ["--preset", preset], [list()]);
  return reply!.result.tools.map((t: { name: string }) => t.name);
}

/** Publishes the configuration with one endpoint, `team`, bound to `preset` with `responseMaxBytes`. */
function withLimit(responseMaxBytes: number, preset = "default") {
  const config = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
  const file = join(at.work, `config-${preset}-${responseMaxBytes}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      ...config,
      mcp: { endpoints: { team: { preset, limits: { responseMaxBytes } } } },
    }),
  );
  return rukh("profile", "set-config", file);
}

/**
 * Every tool name `endpoint` lists, following its cursors, sorted; each
 * answer is checked to be at most `limit` bytes and its tool count pushed to
 * `pages`. Every request's id is a 1 KiB string, the longest the answer's
 * reserve is documented for.
 */
async function listedInPages(endpoint: string, limit: number, pages: number[] = []) {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const [page] = await mcpRequests(
      env(),
      ["--endpoint", endpoint],
      [{ ...list(cursor), id: "i".repeat(1_024) }],
    );
    expect(page!.error).toBeUndefined();
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(limit);
    pages.push(page!.result.tools.length);
    seen.push(...page!.result.tools.map((t: { name: string }) => t.name));
    cursor = page!.result.nextCursor;
  } while (cursor !== undefined);
  return seen.sort();
}

describe("what an agent is listed, it can run", () => {
  it("runs a command with optional interaction over MCP, its question answered by no one, as on the CLI with stdin from /dev/null", async () => {
    const name = namesFor("agent").get("fx.ask/ask")!;
    expect(await listedOverMcp("agent")).toContain(name);
    const [reply] = await mcpRequests(env(), ["--preset", "agent"], [toolCall(name, {})]);
    expect(reply!.result.isError).toBe(false);
    expect(reply!.result.structuredContent).toMatchObject({
      outcome: "succeeded",
      commandResult: { kind: "text", text: "no one to ask: going on without an answer" },
    });
    const cli = rukh("ask");
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toBe("no one to ask: going on without an answer");
  });

  it("stops listing a tool whose requested action its preset loses, and refuses a call by its old name as unknown", async () => {
    const before = namesFor("agent").get("acme.tools/stats")!;
    expect(await listedOverMcp("agent")).toContain(before);
    const denied = rukh("preset", "deny", "agent", "--action", "compute");
    expect(denied.status, denied.stderr).toBe(0);

    // The CLI's preview and the server agree: no stats for agent, while default still has it.
    expect(namesFor("agent").has("acme.tools/stats")).toBe(false);
    const now = namesFor("default").get("acme.tools/stats")!;
    const listed = await listedOverMcp("agent");
    expect(listed).not.toContain(now);
    expect(listed).toContain(namesFor("agent").get("acme.tools/greet"));
    const calls = await mcpRequests(
      env(),
      ["--preset", "agent"],
      [toolCall(before, { values: [1, 2] }), toolCall(now, { values: [1, 2] })],
    );
    for (const reply of calls)
      expect(reply.error).toMatchObject({ code: -32602, message: "Unknown tool" });
    // The person at the terminal, with compute granted, still runs it.
    expect(rukh("acme", "stats", "1", "2").status).toBe(0);
  });

  it("refuses at set-config an endpoint whose responseMaxBytes cannot carry a tool it lists, naming the pointer and the smallest value, which then serves every tool", async () => {
    const refused = withLimit(5000);
    expect(refused.status).toBe(4);
    expect(refused.stderr).toContain("rukh: invalid_config: owner configuration is invalid:");
    expect(refused.stderr).toMatch(
      /\/mcp\/endpoints\/team\/limits\/responseMaxBytes: 5000 cannot carry a tools\/list answer holding the tool fx\.ask\/ask \(\d+ bytes\); set at least \d+/,
    );
    const smallest = Number(/set at least (\d+)/.exec(refused.stderr)![1]);
    const accepted = withLimit(smallest);
    expect(accepted.status, accepted.stderr).toBe(0);
    expect(await listedInPages("team", smallest)).toEqual([...namesFor("default").values()].sort());
  });

  it("serves acme.tools' tools/list within 5000 bytes, a page at a time, where it used to fail every time", async () => {
    const accepted = withLimit(5000, "tools");
    expect(accepted.status, accepted.stderr).toBe(0);
    const pages: number[] = [];
    expect(await listedInPages("team", 5000, pages)).toEqual(
      [...namesFor("tools").values()].sort(),
    );
    expect(pages.length).toBeGreaterThan(1);
    // The owner's preview pages the endpoint's list as its server does.
    const preview = JSON.parse(rukh("--json", "tools", "list", "--endpoint", "team").stdout).result;
    expect(preview.pages).toBe(pages.length);
  });
});
