import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FIXTURE_AGENT_CONSENT, removeDir } from "@rukh/testkit";
import { RUKH_BIN, runCli } from "@rukh/testkit/cli";
import { MODERN_META } from "@rukh/testkit/mcp";
import { describe, expect, it } from "vitest";
import { launchOf as launchReference, serverEntry } from "./_launches.js";
import { useSleeperCli } from "./_sleeper.js";

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
const LIMITED = ["claude-code", "claude-desktop", "vscode", "cursor", "codex"];

/** The owner configuration's endpoints. */
const endpoints = (): Record<string, unknown> =>
  JSON.parse(rukh("--json", "profile", "show").stdout).result.config.mcp?.endpoints ?? {};

/** Publishes the owner configuration with one endpoint set. */
function setEndpoint(name: string, endpoint: object): void {
  const show = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
  const file = join(at.work, `endpoint-${name}.json`);
  const mcp = { ...show.mcp, endpoints: { ...show.mcp?.endpoints, [name]: endpoint } };
  writeFileSync(file, JSON.stringify({ ...show, mcp }));
  const r = rukh("profile", "set-config", file);
  expect(r.status, r.stderr).toBe(0);
}

/** The launch reference `client`'s configuration was given (see _launches.ts). */
const launchOf = (client: string, of: { endpoint?: string; preset?: string }) =>
  launchReference(at.root, client, of);

/** The tool names `rukh mcp serve <args>` lists, read from a real server process. */
function servedNames(args: string[]): string[] {
  const list = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: MODERN_META },
  };
  const r = runCli({
    args: ["mcp", "serve", ...args],
    stateDir: at.root,
    input: `${JSON.stringify(list)}\n`,
  });
  expect(r.status, r.stderr).toBe(0);
  const reply = JSON.parse(r.stdout.trim().split("\n")[0]!);
  return reply.result.tools.map((t: { name: string }) => t.name);
}

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
      "--launch",
      launchOf("inspector", { preset: "default" }),
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

  it("creates an endpoint with compact names for a 64-character client, reuses it, and every name it serves fits with the prefix", () => {
    const dryRun = rukh("mcp", "install", "--client", "cursor", "--preset", "default", "--dry-run");
    expect(dryRun.status, dryRun.stderr).toBe(0);
    expect(dryRun.stderr).toContain("would create endpoint cursor-default");
    expect(endpoints()).toEqual({});
    // A client file that cannot be merged is refused before anything is published.
    const bad = join(at.work, "bad-client.json");
    writeFileSync(bad, "{ not json");
    const refused = rukh(
      "mcp",
      "install",
      "--client",
      "cursor",
      "--preset",
      "default",
      "--file",
      bad,
    );
    expect(refused.status).toBe(2);
    expect(endpoints()).toEqual({});

    // The first 64-character client gets an endpoint of its own; the others reuse it.
    const name = "claude-code-default";
    for (const client of LIMITED) {
      const r = config("--client", client, "--preset", "default");
      expect(r.status, r.stderr).toBe(0);
      if (client === "claude-code")
        expect(r.stderr).toContain(
          `created endpoint ${name} (preset default, compact tool names) for ${client}; published profile revision`,
        );
      else expect(r.stderr).not.toContain("created");
      expect(r.stdout).toContain(name);
      // Asked again: the same endpoint, nothing published.
      const again = config("--client", client, "--preset", "default");
      expect(again.stderr).not.toContain("created");
      expect(again.stdout).toBe(r.stdout);
    }
    expect(endpoints()).toEqual({ [name]: { preset: "default", toolNames: "compact" } });
    // What the printed configuration starts serves names every one of them accepts.
    const names = servedNames(["--endpoint", name]);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(`mcp__rukh__${n}`.length, n).toBeLessThanOrEqual(64);
    // `tools list --endpoint` shows exactly what that endpoint serves.
    const listed = JSON.parse(rukh("--json", "tools", "list", "--endpoint", name).stdout).result;
    expect(listed.preset).toBe("default");
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(names);
    const code = config("--client", "claude-code", "--preset", "default");
    expect(words(code.stdout.trim()).slice(-6)).toEqual([
      "mcp",
      "serve",
      "--endpoint",
      "claude-code-default",
      "--launch",
      launchOf("claude-code", { endpoint: "claude-code-default" }),
    ]);
    // The profile's own names stay full: only the endpoint's are compact.
    for (const n of servedNames(["--preset", "default"])) expect(n.length).toBeGreaterThan(64);
  });

  it("serves a named endpoint only if it exists, fits the client, and is not combined with --preset", () => {
    const fits = config("--client", "vscode", "--endpoint", "claude-code-default");
    expect(fits.status, fits.stderr).toBe(0);
    expect(JSON.parse(fits.stdout).servers.rukh.args).toEqual([
      "mcp",
      "serve",
      "--endpoint",
      "claude-code-default",
      "--launch",
      launchOf("vscode", { endpoint: "claude-code-default" }),
    ]);
    const missing = config("--client", "vscode", "--endpoint", "nope");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no endpoint "nope"; expected one of');
    const both = config(
      "--client",
      "vscode",
      "--endpoint",
      "claude-code-default",
      "--preset",
      "default",
    );
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("--endpoint and --preset cannot be combined");
    // An endpoint with full names does not fit a 64-character client.
    setEndpoint("wide", { preset: "default", toolNames: "full" });
    const wide = config("--client", "claude-code", "--endpoint", "wide");
    expect(wide.status).toBe(2);
    expect(wide.stderr).toContain("claude-code accepts tool names of at most 64 characters");
    expect(config("--client", "inspector", "--endpoint", "wide").status).toBe(0);

    const serveMissing = rukh("mcp", "serve", "--endpoint", "nope");
    expect(serveMissing.status).toBe(2);
    expect(serveMissing.stderr).toContain('no endpoint "nope"; expected one of');
    const serveBoth = rukh("mcp", "serve", "--endpoint", "wide", "--preset", "default");
    expect(serveBoth.status).toBe(2);
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
      "--launch",
      launchOf("claude-code", { preset: "default" }),
    ]);
    // Each client's configuration gets its own launch reference.
    const server = (client: string) => serverEntry(at.root, client);
    for (const client of ["claude-desktop", "cursor", "vscode"] as const) {
      const r = config("--client", client, "--preset", "default");
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(
        client === "vscode"
          ? { servers: { rukh: { type: "stdio", ...server(client) } } }
          : { mcpServers: { rukh: server(client) } },
      );
    }
    const ids = ["claude-code", "claude-desktop", "cursor", "vscode"].map((c) =>
      launchOf(c, { preset: "default" }),
    );
    expect(new Set(ids).size).toBe(4);
    const codex = config("--client", "codex", "--preset", "default");
    expect(codex.status, codex.stderr).toBe(0);
    expect(codex.stdout.trim().split("\n")).toEqual([
      "[mcp_servers.rukh]",
      `command = ${JSON.stringify(RUKH_BIN)}`,
      `args = ["mcp", "serve", "--preset", "default", "--launch", "${launchOf("codex", { preset: "default" })}"]`,
      `env = { RUKH_HOME = ${JSON.stringify(at.root)} }`,
    ]);
  });
});

describe("an agent given a preset whose commands run unconfined", () => {
  const RISK =
    "preset default runs commands host-trusted, unconfined, as your user: an agent using it can do whatever your user can, rukh's own administration included (trust, install, presets)";
  const WARNING = `warning: ${RISK}; served with your consent: ${JSON.stringify(FIXTURE_AGENT_CONSENT)}`;
  const target = () => join(at.work, "vscode-mcp.json");
  /** What mcp config, mcp install and a stdio mcp serve say of `preset`. */
  const said = (preset: string) => [
    config("--client", "inspector", "--preset", preset),
    rukh(
      "mcp",
      "install",
      "--client",
      "vscode",
      "--preset",
      preset,
      "--file",
      target(),
      "--dry-run",
    ),
    runCli({ args: ["mcp", "serve", "--preset", preset], stateDir: at.root, input: "" }),
  ];
  /** Publishes the owner configuration with `change` made to it. */
  type Config = { presets: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  const publish = (name: string, change: (config: Config) => object) => {
    const show = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    const file = join(at.work, `${name}.json`);
    writeFileSync(file, JSON.stringify(change(show)));
    const r = rukh("profile", "set-config", file);
    expect(r.status, r.stderr).toBe(0);
  };

  it("is served with the owner's recorded consent, quoting it; a strict preset needs none", () => {
    publish("with-strict", (show: Config) => {
      const { agentConsent: _, ...strict } = show.presets.default!;
      return {
        ...show,
        presets: { ...show.presets, sandboxed: { ...strict, enforcement: "strict" } },
      };
    });
    for (const preset of ["default", "sandboxed"]) {
      const expected = preset === "default" ? 1 : 0;
      for (const [i, r] of said(preset).entries()) {
        expect(r.status, `${preset} ${i}: ${r.stderr}`).toBe(0);
        expect(r.stderr.split(WARNING).length - 1, `${preset} ${i}: ${r.stderr}`).toBe(expected);
      }
    }
  });

  it("is refused without it, saying how to consent, and nothing is written", () => {
    publish("without-consent", (show: Config) => {
      const { agentConsent: _, ...bare } = show.presets.default!;
      return { ...show, presets: { ...show.presets, default: bare } };
    });
    try {
      for (const [i, r] of said("default").entries()) {
        expect(r.status, `${i}: ${r.stderr}`).toBe(4);
        expect(r.stderr).toContain(RISK);
        expect(r.stderr).toContain(
          'it is given to agents only with your consent, recorded in the owner configuration (/presets/default/agentConsent): rukh preset consent default "<what you allow agents, as you>"',
        );
      }
      expect(existsSync(target())).toBe(false);
    } finally {
      // The way the refusal names: one command, one publication.
      const r = rukh("preset", "consent", "default", FIXTURE_AGENT_CONSENT);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain("recorded the consent to give preset default to agents");
    }
    for (const [i, r] of said("default").entries()) expect(r.status, `${i}: ${r.stderr}`).toBe(0);
    expect(rukh("preset", "consent", "sandboxed", "x").stderr).toContain(
      "preset sandboxed runs strict: agents are given it without consent",
    );
  });
});

describe("the hint of a missing endpoint", () => {
  it("is a command that runs as written, not a template", () => {
    const fresh = mkdtempSync(join(tmpdir(), "rukh-mcp-hint-"));
    try {
      const home = join(fresh, "home");
      const r = runCli({ args: ["mcp", "serve", "--endpoint", "nope"], stateDir: home, input: "" });
      expect(r.status).toBe(2);
      const hint = /`(rukh mcp config [^`]+)`/.exec(r.stderr)?.[1];
      expect(hint, r.stderr).toBeDefined();
      expect(hint).not.toMatch(/[<>]/);
      const ran = runCli({ args: words(hint!).slice(1), stateDir: home });
      expect(ran.status, ran.stderr).toBe(0);
    } finally {
      removeDir(fresh);
    }
  });
});
