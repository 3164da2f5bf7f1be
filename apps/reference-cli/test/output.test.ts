import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import { expect, it } from "vitest";
import { useSleeperCli } from "./_sleeper.js";

// Every administrative command's --json output is one envelope that
// validates against the schema the docs publish; errors too.
const { at, env, rukh } = useSleeperCli("rukh-cli-output-");
const schema = new Validator(
  JSON.parse(
    readFileSync(
      fileURLToPath(new URL("../../../docs/schemas/rukh.output.schema.json", import.meta.url)),
      "utf8",
    ),
  ),
  "2020-12",
  false,
);

function envelopes(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

it("prints one schema-valid envelope for every administrative command, on stdout for results and stderr for errors", () => {
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
    const all = envelopes(r.stdout);
    expect(all.length, words.join(" ")).toBeGreaterThan(0);
    for (const e of all) {
      expect(schema.validate(e).errors, words.join(" ")).toEqual([]);
      const path = words.slice(0, ["docs", "doctor"].includes(words[0]!) ? 1 : 2).join(" ");
      expect(e).toMatchObject({ rukhOutput: 1, command: path });
      expect(e).toHaveProperty("result");
    }
  }
  const failing: [string[], number, string][] = [
    [["ext", "install"], 2, "usage"],
    [["ext", "enable", "fx.nope"], 4, "unknown_extension"],
    [["expose", "add", "fx.nope"], 4, "refused"],
    [["runs", "list", "--outcome", "fine"], 2, "usage"],
    [["preset", "show", "constructor"], 2, "usage"],
  ];
  for (const [words, exitCode, code] of failing) {
    const r = rukh("--json", ...words);
    expect(r.status, words.join(" ")).toBe(exitCode);
    expect(r.stdout).toBe("");
    const [e] = envelopes(r.stderr);
    expect(schema.validate(e!).errors, words.join(" ")).toEqual([]);
    expect(e).toMatchObject({ error: { code, exitCode } });
  }
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
  expect(JSON.parse(after.stdout)).toMatchObject({ rukhOutput: 1, command: "ext list" });
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
  // With --json, even a usage error is an envelope.
  const json = rukh("--json", "ext", "install");
  expect(JSON.parse(json.stderr)).toEqual({
    rukhOutput: 1,
    command: "ext install",
    error: {
      code: "usage",
      message: "<packages> is required; expected a value for <packages>",
      exitCode: 2,
    },
  });
});

it("stops quietly when the reader of its output goes away (`rukh docs | head`), with the exit code it would have had", async () => {
  const { spawn } = await import("node:child_process");
  const { RUKH_BIN } = await import("./_sleeper.js");
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
    const child = spawn(RUKH_BIN, args, { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    // The reading end is closed before anything is written: every write meets EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
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
