import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RUKH_BIN, useSleeperCli } from "./_sleeper.js";

// `rukh mcp config` for each client: what it prints must start the server
// exactly as written, with the state directory in a path a shell would
// otherwise split or run, and only with tool names the client accepts.
const { at, rukh } = useSleeperCli("rukh mcp config $(touch pwned) 'q' ");

/** The words a POSIX shell makes of `line` (nothing in it runs). */
function words(line: string): string[] {
  const r = spawnSync("/bin/sh", ["-c", `set -- ${line}; for a; do printf '%s\\0' "$a"; done`], {
    encoding: "utf8",
  });
  expect(r.status).toBe(0);
  return r.stdout.split("\0").slice(0, -1);
}

const config = (...args: string[]) => rukh("mcp", "config", ...args);

describe("rukh mcp config", () => {
  it("prints an Inspector command, pinned, whose words survive the shell exactly", () => {
    const r = config("--client", "inspector", "--preset", "default");
    expect(r.status, r.stderr).toBe(0);
    const line = r.stdout.trim();
    expect(line).toMatch(/^npx -y @modelcontextprotocol\/inspector@2\.12\.0 --cli /);
    expect(words(line)).toEqual([
      "npx",
      "-y",
      "@modelcontextprotocol/inspector@2.12.0",
      "--cli",
      "-e",
      `RUKH_HOME=${at.root}`,
      RUKH_BIN,
      "mcp",
      "serve",
      "--preset",
      "default",
      "--method",
      "tools/list",
    ]);
    // The state directory's name holds `$(touch pwned)`: the shell ran nothing.
    expect(existsSync("pwned")).toBe(false);
  });

  it("refuses a preset the profile does not define, naming the ones it does", () => {
    const r = config("--client", "inspector", "--preset", "nope");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no preset "nope"; expected one of default');
  });

  it("refuses a 64-character client while full tool names do not fit its prefix, and says how to fix it", () => {
    for (const client of ["claude-code", "vscode", "cursor", "codex", "claude-desktop"]) {
      const r = config("--client", client, "--preset", "default");
      expect(r.status, client).toBe(2);
      expect(r.stderr).toContain(`${client} accepts tool names of at most 64 characters`);
      expect(r.stderr).toContain('"toolNames": "compact"');
      expect(r.stdout).toBe("");
    }
  });

  it("prints each client's configuration once compact names fit, every name within the limit with the prefix", () => {
    const show = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    const file = join(at.work, "compact.json");
    writeFileSync(file, JSON.stringify({ ...show, mcp: { toolNames: "compact" } }));
    expect(rukh("profile", "set-config", file).status).toBe(0);
    const names: string[] = JSON.parse(
      rukh("--json", "tools", "list", "--preset", "default").stdout,
    ).result.tools.map((t: { name: string }) => t.name);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(`mcp__rukh__${n}`.length).toBeLessThanOrEqual(64);

    const code = config("--client", "claude-code", "--preset", "default");
    expect(code.status, code.stderr).toBe(0);
    expect(words(code.stdout.trim())).toEqual([
      "claude",
      "mcp",
      "add",
      "rukh",
      "--env",
      `RUKH_HOME=${at.root}`,
      "--",
      RUKH_BIN,
      "mcp",
      "serve",
      "--preset",
      "default",
    ]);
    const server = {
      command: RUKH_BIN,
      args: ["mcp", "serve", "--preset", "default"],
      env: { RUKH_HOME: at.root },
    };
    for (const [client, expected] of [
      ["claude-desktop", { mcpServers: { rukh: server } }],
      ["cursor", { mcpServers: { rukh: server } }],
      ["vscode", { servers: { rukh: { type: "stdio", ...server } } }],
    ] as const) {
      const r = config("--client", client, "--preset", "default");
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(expected);
    }
    const codex = config("--client", "codex", "--preset", "default");
    expect(codex.status, codex.stderr).toBe(0);
    expect(codex.stdout.trim().split("\n")).toEqual([
      "[mcp_servers.rukh]",
      `command = ${JSON.stringify(RUKH_BIN)}`,
      'args = ["mcp", "serve", "--preset", "default"]',
      `env = { RUKH_HOME = ${JSON.stringify(at.root)} }`,
    ]);
  });
});
