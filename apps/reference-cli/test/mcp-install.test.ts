import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { RUKH_BIN, runCli } from "@rukh/testkit/cli";
import { beforeAll, describe, expect, it } from "vitest";
import { launchOf as launchReference, serverEntry } from "./_launches.js";
import { useSleeperCli } from "./_sleeper.js";

// `rukh mcp install` writes the client's own file: merged, backed up,
// idempotent, previewed with --dry-run, and never half-written.
const { at, rukh } = useSleeperCli("rukh-cli-mcp-install-");

beforeAll(() => {
  // Compact names, so that the 64-character clients accept the tools.
  const config = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
  const file = join(at.work, "compact.json");
  writeFileSync(file, JSON.stringify({ ...config, mcp: { toolNames: "compact" } }));
  expect(rukh("profile", "set-config", file).status).toBe(0);
});

const dir = () => mkdtempSync(join(tmpdir(), "rukh-mcp-install-"));
const install = (...args: string[]) => rukh("mcp", "install", "--preset", "default", ...args);
/** The launch reference `client`'s configuration was given (see _launches.ts). */
const launchOf = (client: string, of: { endpoint?: string; preset?: string }) =>
  launchReference(at.root, client, of);

/** What `client`'s configuration starts: this server, with the launch reference it was given. */
const server = (client: string) => serverEntry(at.root, client);
const backups = (d: string) => readdirSync(d).filter((f) => f.endsWith(".bak"));

describe("rukh mcp install", () => {
  it("creates the file when there is none, readable by the user only", () => {
    const file = join(dir(), "sub", "mcp.json");
    const r = install("--client", "cursor", "--file", file);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      mcpServers: { rukh: server("cursor") },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("merges into an existing file, keeping everything else and a backup of what was there", () => {
    const d = dir();
    const file = join(d, "claude_desktop_config.json");
    const before = { theme: "dark", mcpServers: { other: { command: "other", args: [] } } };
    writeFileSync(file, JSON.stringify(before, null, 4));
    const r = install("--client", "claude-desktop", "--file", file);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      theme: "dark",
      mcpServers: { other: { command: "other", args: [] }, rukh: server("claude-desktop") },
    });
    const [backup] = backups(d);
    expect(readFileSync(join(d, backup!), "utf8")).toBe(JSON.stringify(before, null, 4));
    expect(r.stdout).toContain(`the previous file is ${join(d, backup!)}`);

    // Again: nothing to do, nothing written, no second backup.
    const again = install("--client", "claude-desktop", "--file", file);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("already starts this server; nothing written");
    expect(backups(d)).toHaveLength(1);
  });

  it("shows a line diff with --dry-run and writes nothing", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    const text = `${JSON.stringify({ servers: {} }, null, 2)}\n`;
    writeFileSync(file, text);
    const r = install("--client", "vscode", "--file", file, "--dry-run");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`--- ${file}`);
    expect(r.stdout).toContain('-   "servers": {}');
    expect(r.stdout).toContain('+       "type": "stdio",');
    expect(r.stdout).toContain("(dry run: nothing written)");
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(backups(d)).toEqual([]);
  });

  it("refuses a file that is not JSON, naming where, and leaves it alone", () => {
    const d = dir();
    const file = join(d, ".mcp.json");
    writeFileSync(file, '{\n  "mcpServers": {\n    "x": 1,\n  }\n}\n');
    const r = install("--client", "claude-code", "--file", file);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${file.replaceAll(".", "\\.")}:4:3 is not valid JSON`));
    expect(readFileSync(file, "utf8")).toBe('{\n  "mcpServers": {\n    "x": 1,\n  }\n}\n');
    expect(backups(d)).toEqual([]);
  });

  it("refuses a configuration file over 1 MiB without reading it whole, and leaves it alone", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    writeFileSync(file, `{"pad":"${"x".repeat(1_048_576)}"}`);
    const r = install("--client", "cursor", "--file", file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file} is larger than 1048576 bytes`);
    expect(backups(d)).toEqual([]);
  });

  it("replaces its own Codex table and keeps the others", () => {
    const d = dir();
    const file = join(d, "config.toml");
    writeFileSync(
      file,
      'model = "o4"\n\n[mcp_servers.rukh]\ncommand = "old"\nargs = []\n\n[mcp_servers.other]\ncommand = "x"\n',
    );
    const r = install("--client", "codex", "--file", file);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(
      [
        'model = "o4"',
        "",
        "[mcp_servers.rukh]",
        `command = ${JSON.stringify(RUKH_BIN)}`,
        `args = ["mcp", "serve", "--preset", "default", "--launch", "${launchOf("codex", { preset: "default" })}"]`,
        `env = { RUKH_HOME = ${JSON.stringify(at.root)} }`,
        "",
        "[mcp_servers.other]",
        'command = "x"',
        "",
      ].join("\n"),
    );
    expect(install("--client", "codex", "--file", file).stdout).toContain("nothing written");
  });

  it("finds its Codex table with a comment on the header and replaces its sub-tables; refuses a form it cannot rewrite", () => {
    const d = dir();
    const file = join(d, "config.toml");
    writeFileSync(
      file,
      '[mcp_servers.rukh] # ours\ncommand = "old"\n\n[mcp_servers.rukh.env]\nRUKH_HOME = "/old"\n\n[other]\nx = 1\n',
    );
    expect(install("--client", "codex", "--file", file).status).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text.match(/\[mcp_servers\.rukh/g)).toHaveLength(1);
    expect(text).not.toContain("/old");
    expect(text).toContain("[other]\nx = 1\n");

    const inline = join(d, "inline.toml");
    const before = '[mcp_servers]\nrukh = { command = "old" }\n';
    writeFileSync(inline, before);
    const r = install("--client", "codex", "--file", inline);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${inline}:2: the rukh server is defined there in a form`);
    expect(readFileSync(inline, "utf8")).toBe(before);
  });

  it("keeps the user's own settings of its entry, writes through a symlink, and records an absolute RUKH_HOME", () => {
    const d = dir();
    const real = join(d, "real.json");
    writeFileSync(
      real,
      JSON.stringify({
        mcpServers: { rukh: { command: "old", disabled: false, autoApprove: ["x"] } },
      }),
    );
    const link = join(d, "mcp.json");
    symlinkSync(real, link);
    const r = runCli({
      args: ["mcp", "install", "--preset", "default", "--client", "cursor", "--file", link],
      cwd: dirname(at.root),
      stateDir: basename(at.root),
    });
    expect(r.status, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8"))).toEqual({
      mcpServers: { rukh: { ...server("cursor"), disabled: false, autoApprove: ["x"] } },
    });
  });

  it("writes the project's file for Claude Code by default", () => {
    const d = dir();
    const r = spawnIn(d, "--client", "claude-code");
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(d, ".mcp.json"), "utf8"))).toEqual({
      mcpServers: { rukh: server("claude-code") },
    });
    expect(existsSync(join(d, ".mcp.json"))).toBe(true);
  });
});

function spawnIn(cwd: string, ...args: string[]) {
  return runCli({
    args: ["mcp", "install", "--preset", "default", ...args],
    cwd,
    stateDir: at.root,
  });
}
