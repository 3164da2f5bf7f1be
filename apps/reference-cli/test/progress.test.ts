import { exposedState, fixturePreset, machine, managed, removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpLines, toolCall } from "./_author.js";

// Progress pushed as hard as a command can push it, over a real
// `rukh mcp serve`: a burst is rate-limited to one notification per 100 ms,
// and reports that never stop do not keep a call past its endpoint's deadline.
const at = { work: "", root: "" };
const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", RUKH_HOME: at.root });
const rukh = (...args: string[]) => runCli({ args, stateDir: at.root });
const BURST = 2_000;

beforeAll(async () => {
  const made = await exposedState({
    prefix: "rukh-cli-progress-",
    endpointNamespace: "acme-cli-progress",
    presets: { default: fixturePreset({ commands: ["fx.busy/*"], deadlineMs: 30_000 }) },
    config: {
      mcp: {
        endpoints: { wide: { preset: "default" }, tight: { preset: "default", deadlineMs: 3_000 } },
      },
    },
    packages: [
      {
        descriptor: {
          format: "rukh.extension/2",
          id: "fx.busy",
          version: "1.0.0",
          publisher: "acme",
          commands: [
            {
              id: "burst",
              path: ["busy", "burst"],
              summary: "Report progress as fast as a loop can",
              inputs: [],
              execute: managed({ kind: "text" }, "bin/busy.mjs"),
              machine: machine(),
            },
            {
              id: "forever",
              path: ["busy", "forever"],
              summary: "Report progress and never finish",
              inputs: [],
              execute: managed({ kind: "text" }, "bin/busy.mjs"),
              machine: machine(),
            },
          ],
        },
        programs: {
          "bin/busy.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
const tick = () => new Promise((r) => setImmediate(r));
await runCommandProcess({ handlers: {
  "fx.busy/burst": async (ctx) => {
    for (let i = 1; i <= ${BURST}; i++) {
      ctx.progress(i, ${BURST});
      if (i % 4 === 0) await new Promise((r) => setTimeout(r, 1));
      else await tick();
    }
    return textResult("done\\n");
  },
  "fx.busy/forever": async (ctx) => {
    for (let i = 1; ; i++) {
      ctx.progress(i);
      await new Promise((r) => setTimeout(r, 10));
    }
  },
} });
`,
        },
      },
    ],
  });
  at.work = made.work;
  at.root = made.root;
});
afterAll(() => removeDir(at.work));

function toolName(endpoint: string, identity: string): string {
  const listed = rukh("--json", "tools", "list", "--endpoint", endpoint);
  expect(listed.status, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout).result.tools.find(
    (t: { identity: string }) => t.identity === identity,
  ).name;
}

/** A progress-token call at `endpoint`; its notifications and reply, and how long the reply took. */
async function callWithProgress(endpoint: string, identity: string) {
  const name = toolName(endpoint, identity);
  const call = toolCall(name, {}) as { params: { _meta: object } };
  call.params._meta = { ...call.params._meta, progressToken: 7 };
  const t0 = Date.now();
  let elapsed = 0;
  // Every message the server writes, until 300 ms after the reply (id 1).
  const lines = await mcpLines(
    env(),
    ["--endpoint", endpoint],
    [call],
    (seen) => {
      const replied = seen.some((m) => m.id === 1);
      if (replied && elapsed === 0) elapsed = Date.now() - t0;
      return replied;
    },
    300,
  );
  const notes = lines.filter((m) => m.method === "notifications/progress");
  const reply = lines.find((m) => m.id === 1)!;
  return { notes, reply, elapsed, lines };
}

describe("progress over MCP under pressure", () => {
  it("a burst of reports becomes at most one notification per 100 ms, each further on", async () => {
    const { notes, reply, elapsed } = await callWithProgress("wide", "fx.busy/burst");
    expect(reply.result.structuredContent.outcome).toBe("succeeded");
    // Thousands of reports: a handful of notifications, bounded by the time the call took.
    expect(notes.length).toBeGreaterThanOrEqual(2);
    expect(notes.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);
    const values = notes.map((n) => n.params.progress as number);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
    expect(notes.every((n) => n.params.progressToken === 7 && n.params.total === BURST)).toBe(true);
  });

  it("reports that never stop do not keep a call past its endpoint's deadline", async () => {
    const { notes, reply, elapsed, lines } = await callWithProgress("tight", "fx.busy/forever");
    expect(reply.result.structuredContent).toMatchObject({
      outcome: "cancelled",
      reason: "deadline",
    });
    // The endpoint allows 3 s (its cancel goes at 2 s, so even a loaded
    // machine has started the command by then); the preset would allow 30 s.
    expect(elapsed).toBeLessThan(15_000);
    // Its reports flowed (how many fit before the deadline depends on the machine's load).
    expect(notes.length).toBeGreaterThanOrEqual(1);
    // Nothing follows the reply.
    expect(lines.at(-1)).toBe(reply);
  });
});
