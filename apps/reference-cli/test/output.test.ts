import type { SpawnSyncReturns } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import { OUTCOME_KINDS, OUTCOME_REASONS } from "@rukh/core";
import { RUKH_BIN, runCli, spawnCli } from "@rukh/testkit/cli";
import { expect, it } from "vitest";
import { adminBuiltins } from "../src/admin/index.js";
import { useSleeperCli } from "./_sleeper.js";

// Every administrative command's --json output is one envelope that
// validates against the schema the docs publish; errors too.
const { at, rukh } = useSleeperCli("rukh-cli-output-");
const rawSchema = JSON.parse(
  readFileSync(
    fileURLToPath(new URL("../../../docs/schemas/rukh.output.schema.json", import.meta.url)),
    "utf8",
  ),
);
const schema = new Validator(rawSchema, "2020-12", false);

function envelopes(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

/** The `--json` output of `words`, each line one envelope, each checked against the schema. */
function checked(words: readonly string[], r: SpawnSyncReturns<string>): Envelope[] {
  const all = envelopes(r.stdout) as unknown as Envelope[];
  expect(all.length, `${words.join(" ")}: ${r.stdout}${r.stderr}`).toBeGreaterThan(0);
  for (const e of all) {
    expect(schema.validate(e).errors, `${words.join(" ")}: ${JSON.stringify(e)}`).toEqual([]);
    // An error says the exit status it comes with; a result or an outcome are what the command printed.
    if (e.error !== undefined) expect(e.error.exitCode, words.join(" ")).toBe(r.status);
  }
  return all;
}

interface Envelope {
  rukhOutput: number;
  command: string | null;
  result?: unknown;
  outcome?: { outcome: string; reason: string; commandResult?: unknown };
  error?: { code: string; message: string; exitCode: number; recovery?: string };
}

it("prints one schema-valid envelope on stdout for every command, extension commands and usage errors included", () => {
  expect(rukh("nap").status).toBe(0);
  const id = JSON.parse(rukh("--json", "runs", "list", "--limit", "1").stdout).result.runs[0]
    .invocationId;
  const pkg = join(at.work, readdirSync(at.work).find((n) => n.startsWith("pkg-"))!);
  const config = join(at.work, "config.json");
  writeFileSync(
    config,
    JSON.stringify(JSON.parse(rukh("--json", "profile", "show").stdout).result.config),
  );
  const history = JSON.parse(rukh("--json", "profile", "history").stdout).result;
  const ok: string[][] = [
    ["ext", "list"],
    ["ext", "install", pkg],
    ["ext", "disable", "fx.sleep"],
    ["ext", "enable", "fx.sleep"],
    ["trust", "list"],
    ["expose", "add", "fx.sleep/nap"],
    ["expose", "remove", "fx.sleep/nap"],
    ["preset", "list"],
    ["preset", "show", "default"],
    ["preset", "allow", "default", "fx.sleep/nap"],
    ["preset", "deny", "default", "fx.sleep/nap"],
    ["preset", "allow", "default", "fx.sleep/nap"],
    ["profile", "show"],
    ["profile", "history"],
    ["profile", "set-config", config],
    ["profile", "rollback", history[1].id],
    ["profile", "gc", "--dry-run"],
    ["tools", "list"],
    ["runs", "list"],
    ["runs", "show", id],
    ["runs", "tail", "--limit", "3"],
    ["docs"],
    ["doctor"],
    ["mcp", "config", "--client", "inspector", "--preset", "default"],
  ];
  for (const words of ok) {
    const r = rukh("--json", ...words);
    expect(r.stderr, words.join(" ")).toBe("");
    for (const e of checked(words, r)) {
      const path = words.slice(0, ["docs", "doctor"].includes(words[0]!) ? 1 : 2).join(" ");
      expect(e).toMatchObject({ rukhOutput: 2, command: path });
      expect(e).toHaveProperty("result");
    }
  }

  // Every built-in, walked from the CLI's own declarations: called with no
  // arguments, each prints one envelope (its result, or why it refused).
  const work = mkdtempSync(join(at.work, "walk-"));
  const builtins = adminBuiltins({ brand: "rukh", version: "0.0.0", executable: RUKH_BIN });
  expect(builtins.length).toBeGreaterThan(30);
  for (const b of builtins.filter((b) => b.hidden !== true)) {
    const r = runCli({
      args: ["--json", ...b.path],
      stateDir: at.root,
      cwd: work,
      stdin: "ignore",
    });
    for (const e of checked(b.path, r)) expect(e.command).toBe(b.path.join(" "));
  }

  // An extension command prints its outcome envelope inside the same envelope, failures too.
  // (The rollback above went back to before the sleeper was allowed: allow it again.)
  for (const words of [
    ["ext", "install", pkg],
    ["ext", "enable", "fx.sleep"],
  ])
    expect(rukh(...words).status, words.join(" ")).toBe(0);
  rukh("preset", "allow", "default", "fx.sleep/nap");
  const ran = checked(["nap"], rukh("--json", "nap", "--wait-ms", "1"));
  expect(ran).toEqual([
    {
      rukhOutput: 2,
      command: "nap",
      outcome: {
        invocationId: expect.any(String),
        outcome: "succeeded",
        reason: "completed",
        commandResult: { kind: "text", text: "slept" },
      },
    },
  ]);
  rukh("preset", "deny", "default", "fx.sleep/*", "fx.sleep/nap");
  const denied = rukh("--json", "nap");
  expect(denied.status).toBe(4);
  expect(checked(["nap"], denied)[0]).toMatchObject({
    command: "nap",
    outcome: { outcome: "rejected", reason: "preset_denied" },
  });
  rukh("preset", "allow", "default", "fx.sleep/nap");

  // Usage errors, wherever --json is written: the error, on stdout, with the same exit status.
  const usage: [string[], string | null, string][] = [
    [["--json", "nap", "--zzz", "1"], "nap", "rukh nap --help"],
    [["nap", "--zzz", "1", "--json"], "nap", "rukh nap --help"],
    [["--json", "nap", "--wait-ms", "x"], "nap", "rukh nap --help"],
    [["--json", "acme", "greet", "--zzz", "1"], null, "rukh --help"],
    [["--json", "ext", "install"], "ext install", "rukh ext install --help"],
    [["ext", "list", "--bogus", "--json"], "ext list", "rukh ext list --help"],
    [["--json", "--bogus"], null, "rukh --help"],
  ];
  for (const [words, command, recovery] of usage) {
    const r = rukh(...words);
    expect(r.status, words.join(" ")).toBe(2);
    expect(r.stderr, words.join(" ")).toBe("");
    expect(checked(words, r)).toEqual([
      {
        rukhOutput: 2,
        command,
        error: { code: "usage", message: expect.any(String), exitCode: 2, recovery },
      },
    ]);
  }

  const failing: [string[], number, string][] = [
    [["ext", "enable", "fx.nope"], 4, "unknown_extension"],
    [["expose", "add", "fx.nope"], 4, "refused"],
    [["runs", "list", "--outcome", "fine"], 2, "usage"],
    [["preset", "show", "constructor"], 2, "usage"],
  ];
  for (const [words, exitCode, code] of failing) {
    const r = rukh("--json", ...words);
    expect(r.status, words.join(" ")).toBe(exitCode);
    expect(r.stderr, words.join(" ")).toBe("");
    const [e] = checked(words, r);
    expect(e).toMatchObject({ error: { code, exitCode, recovery: expect.any(String) } });
  }
  // About seventy CLI runs, each a process: on a busy runner that is more than a minute.
}, 180_000);

it("prints help and --version with --json as a result envelope too, its text what they print without it", () => {
  for (const words of [
    ["--json", "--version"],
    ["--json", "--help"],
    ["--json", "runs"],
    ["runs", "--json"],
    ["--json", "runs", "show", "--help"],
    ["nap", "--json", "--help"],
  ]) {
    const r = rukh(...words);
    expect(r.status, `${words.join(" ")}: ${r.stderr}`).toBe(0);
    const [e] = checked(words, r);
    const plain = rukh(...words.filter((w) => w !== "--json"));
    expect((e!.result as { text: string }).text, words.join(" ")).toBe(plain.stdout);
  }
  const version = checked(["--json", "--version"], rukh("--json", "--version"))[0]!;
  expect(version.result).toMatchObject({ name: "rukh", version: expect.any(String) });
});

it("describes the outcomes and reasons the core returns, no more and no fewer", () => {
  const outcome = rawSchema.$defs.outcome.properties;
  expect(outcome.outcome.enum).toEqual([...OUTCOME_KINDS]);
  expect([...outcome.reason.enum].sort()).toEqual(
    [...new Set(Object.values(OUTCOME_REASONS).flat())].sort(),
  );
});

it("ends a usage error with the runnable line that shows how to call the command", () => {
  const r = rukh("ext", "install");
  expect(r.status).toBe(2);
  expect(r.stderr).toBe(
    "error: <packages> is required; expected a value for <packages>\nSee:\n  $ rukh ext install --help\n",
  );
  expect(rukh("ext", "install", "--help").status).toBe(0);
});

it("accepts --json after the command path too, and checks flags with the same lexer and validator as extension commands", () => {
  const after = rukh("ext", "list", "--json");
  expect(after.status).toBe(0);
  expect(JSON.parse(after.stdout)).toMatchObject({ rukhOutput: 2, command: "ext list" });
  // After a `--` it is an argument like any other.
  expect(rukh("ext", "list", "--", "--json").stderr).toContain(
    'unexpected argument "--json"; it takes no arguments',
  );
  expect(rukh("ext", "list", "--bogus").stderr).toBe(
    "error: unknown flag --bogus; this command takes no flags\nSee:\n  $ rukh ext list --help\n",
  );
  expect(rukh("runs", "list", "--limit").stderr).toContain(
    "error: --limit needs a value <integer>",
  );
  expect(rukh("runs", "tail", "--follow=3").stderr).toContain(
    'error: --follow: got "3"; expected true or false\n',
  );
  expect(rukh("profile", "gc", "--keep", "0").stderr).toContain(
    "error: --keep: got 0; expected at least 1\n",
  );
  // With --json, even a usage error is an envelope, on stdout.
  const json = rukh("--json", "ext", "install");
  expect(json.stderr).toBe("");
  expect(JSON.parse(json.stdout)).toEqual({
    rukhOutput: 2,
    command: "ext install",
    error: {
      code: "usage",
      message: "<packages> is required; expected a value for <packages>",
      exitCode: 2,
      recovery: "rukh ext install --help",
    },
  });
});

it("stops quietly when the reader of its output goes away (`rukh docs | head`), with the exit code it would have had", async () => {
  // Whatever the tests before left denied or disabled, `nap` runs again.
  rukh("ext", "install", join(at.work, readdirSync(at.work).find((n) => n.startsWith("pkg-"))!));
  rukh("ext", "enable", "fx.sleep");
  rukh("preset", "allow", "default", "fx.sleep/nap");
  for (const args of [
    ["docs"],
    ["tools", "list"],
    ["--help"],
    ["nap"],
    ["--json", "ext", "list"],
  ]) {
    const child = spawnCli({ args, stateDir: at.root }, ["ignore", "pipe", "pipe"]);
    // The reading end is closed before anything is written: every write meets EPIPE.
    child.stdout!.destroy();
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    // The same call with its output read: the same exit code and the same words on stderr.
    const read = rukh(...args);
    expect(read.stdout.length, `${args.join(" ")}: ${read.stderr}`).toBeGreaterThan(0);
    expect({ args, status, stderr }).toEqual({ args, status: read.status, stderr: read.stderr });
    expect(stderr).not.toMatch(/EPIPE/);
  }
});

it("says a damaged state directory is a state error (exit 5), not a refusal, and points at doctor", () => {
  const damaged = mkdtempSync(join(tmpdir(), "rukh-cli-damaged-"));
  try {
    // Nothing but the state directory in its environment, not even PATH.
    const there = (...args: string[]) =>
      runCli({ args, stateDir: damaged, env: { PATH: undefined } });
    const key = fileURLToPath(
      new URL("../../../fixtures/keys/example-publisher.pub", import.meta.url),
    );
    expect(there("trust", "add", key, "--publisher", "acme").status).toBe(0);
    // The active revision's record, no longer JSON.
    const active = readFileSync(join(damaged, "active"), "utf8").trim();
    writeFileSync(join(damaged, "revisions", `${active}.json`), '{"broken":');
    const words = ["--json", "trust", "list"];
    const r = there(...words);
    expect(r.status).toBe(5);
    const [e] = checked(words, r);
    expect(e!.error).toMatchObject({
      code: "invalid_revision",
      exitCode: 5,
      recovery: "rukh doctor",
    });
  } finally {
    rmSync(damaged, { recursive: true, force: true });
  }
});
