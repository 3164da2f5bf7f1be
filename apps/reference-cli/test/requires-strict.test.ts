import { existsSync } from "node:fs";
import { exposedState, fixturePreset, machine, managed, removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpRequests } from "./_author.js";

// A command whose publisher declares that it runs only confined
// (rukh.extension/3 `confinement: "strict"`) is never listed or run under a
// host-trusted preset — on the CLI, in tools list, over MCP — and runs under
// a strict one like any other command.
const at = { root: "", work: "" };
const sandbox = ["/usr/bin/bwrap", "/bin/bwrap"].some((p) => existsSync(p));
beforeAll(async () => {
  const command = (id: string, extra: object = {}) => ({
    id,
    path: [id],
    summary: `Run ${id}`,
    execute: managed({ kind: "text" }, "bin/run.mjs"),
    machine: machine(),
    ...extra,
  });
  Object.assign(
    at,
    await exposedState({
      prefix: "rukh-cli-requires-strict-",
      endpointNamespace: "acme-confined",
      presets: {
        default: fixturePreset({ commands: ["fx.conf/*"], deadlineMs: 30_000 }),
        locked: fixturePreset({
          commands: ["fx.conf/*"],
          deadlineMs: 30_000,
          enforcement: "strict",
        }),
      },
      packages: [
        {
          descriptor: {
            format: "rukh.extension/3",
            id: "fx.conf",
            version: "1.0.0",
            publisher: "acme",
            commands: [command("open"), command("sealed", { confinement: "strict" })],
          },
          programs: {
            "bin/run.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: {
  "fx.conf/open": () => textResult("open ran"),
  "fx.conf/sealed": () => textResult("sealed ran"),
} });
`,
          },
        },
      ],
    }),
  );
});
afterAll(() => removeDir(at.work));

const rukh = (...args: string[]) => runCli({ args, stateDir: at.root });
const identities = (preset: string) =>
  (
    JSON.parse(rukh("--json", "tools", "list", "--preset", preset).stdout).result.tools as {
      identity: string;
    }[]
  ).map((t) => t.identity);

describe("a command that runs only confined", () => {
  it("is not listed under a host-trusted preset, and the CLI refuses to run it there", () => {
    expect(identities("default")).toEqual(["fx.conf/open"]);
    const r = rukh("--json", "sealed");
    expect(r.status).toBe(4);
    expect(JSON.parse(r.stdout).outcome).toMatchObject({
      outcome: "rejected",
      reason: "preset_denied",
      diagnostic: { message: expect.stringContaining("runs only confined") },
    });
    expect(rukh("open").stdout).toBe("open ran");
  });

  it("is not offered over MCP under a host-trusted preset", async () => {
    const [list] = await mcpRequests(
      { RUKH_HOME: at.root },
      ["--preset", "default"],
      [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } }],
    );
    expect(list!.result.tools.map((t: { name: string }) => t.name).join(" ")).not.toContain(
      "sealed",
    );
  });

  it.runIf(sandbox)("is listed and runs under a strict preset", async () => {
    expect(identities("locked")).toEqual(["fx.conf/open", "fx.conf/sealed"]);
    const list = JSON.parse(rukh("--json", "tools", "list", "--preset", "locked").stdout).result
      .tools as { identity: string; name: string }[];
    const name = list.find((t) => t.identity === "fx.conf/sealed")!.name;
    const [, call] = await mcpRequests(
      { RUKH_HOME: at.root },
      ["--preset", "locked"],
      [
        { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name, arguments: {}, _meta: MODERN_META },
        },
      ],
    );
    expect(call!.result.structuredContent).toMatchObject({
      outcome: "succeeded",
      commandResult: { text: "sealed ran" },
    });
  });
});
