import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publicKeyBase64 } from "@rukh/profile";
import { FIXTURE_PUB, removeDir, tempDir, writeFixturePackage } from "@rukh/testkit";
import { RUKH_BIN, runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sleeperDescriptor, useSleeperCli } from "../_sleeper.js";

// Every failure of an administrative command ends with a command that runs:
// a `  $ rukh …` line, in the brand's own name, that a shell runs as printed
// in the state the failure left (nothing: a refusal changes nothing), and
// that exits 0. With --json the same line is the error's `recovery`.
const { at, env } = useSleeperCli("rukh-cli-recovery-");
const fresh = tempDir("rukh-cli-recovery-fresh-");
afterAll(() => removeDir(fresh));

/** A directory holding `rukh`, for a shell to find the brand by its name. */
let bin: string;
const files = { otherKey: "", sameKey: "", missing: "", reused: "", badConfig: "" };
beforeAll(async () => {
  bin = join(fresh, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "rukh"), `#!/bin/sh\nexec ${JSON.stringify(RUKH_BIN)} "$@"\n`);
  chmodSync(join(bin, "rukh"), 0o755);
  files.otherKey = join(fresh, "other.pub");
  writeFileSync(files.otherKey, `${publicKeyBase64(generateKeyPairSync("ed25519").publicKey)}\n`);
  files.sameKey = join(fresh, "acme.pub");
  writeFileSync(files.sameKey, `${FIXTURE_PUB.trim()}\n`);
  files.missing = join(fresh, "missing.pub");
  files.badConfig = join(fresh, "config.json");
  writeFileSync(files.badConfig, '{"brand":1}');
  // fx.sleep 1.0.0 again, with other content: a version may name one content only.
  files.reused = await writeFixturePackage({
    parent: fresh,
    descriptor: sleeperDescriptor(1),
    programs: { "bin/nap.mjs": "// other content\n" },
  });
});

/** The state directories the failures are met in. */
const homes = () => ({ sleeper: at.root, fresh: join(fresh, "home") });

/** Every refusal, the state it is met in, its exit status and the one line it must end with. */
const failures = (): [keyof ReturnType<typeof homes>, string[], number, string][] => [
  // The refusals issue 37 found without a way out.
  ["sleeper", ["expose", "add", "nonexistent.ext"], 4, "rukh ext list"],
  ["sleeper", ["ext", "remove", "nope.x"], 4, "rukh ext list"],
  ["sleeper", ["ext", "install", "/nonexistent/pkg"], 4, "rukh ext install --help"],
  ["sleeper", ["mcp", "serve", "--preset", "nope"], 2, "rukh preset list"],
  ["sleeper", ["mcp", "serve", "--endpoint", "nope"], 2, "rukh mcp config --help"],
  // And every other refusal of the administrative commands.
  ["sleeper", ["ext", "enable", "nope.x"], 4, "rukh ext list"],
  ["sleeper", ["ext", "disable", "nope.x"], 4, "rukh ext list"],
  ["sleeper", ["ext", "install", files.reused], 4, "rukh ext list"],
  ["sleeper", ["ext", "unlink", "fx.sleep"], 4, "rukh ext list"],
  ["sleeper", ["ext", "upgrade", "nope.x"], 2, "rukh ext list"],
  ["sleeper", ["ext", "upgrade", "fx.sleep"], 2, "rukh ext list"],
  ["sleeper", ["expose", "add", "fx.sleep/zz"], 4, "rukh ext list"],
  ["sleeper", ["expose", "remove", "nope.x"], 4, "rukh profile show"],
  ["sleeper", ["trust", "add", files.otherKey, "--publisher", "acme"], 4, "rukh trust list"],
  ["sleeper", ["trust", "add", files.sameKey, "--publisher", "other"], 4, "rukh trust list"],
  ["sleeper", ["trust", "add", files.missing, "--publisher", "x"], 2, "rukh trust add --help"],
  ["sleeper", ["trust", "rotate", "acme", files.sameKey], 4, "rukh trust list"],
  ["sleeper", ["trust", "rotate", "nope", files.otherKey], 4, "rukh trust list"],
  ["sleeper", ["trust", "remove", "nope"], 4, "rukh trust list"],
  ["sleeper", ["preset", "show", "nope"], 2, "rukh preset list"],
  ["sleeper", ["preset", "allow", "nope", "fx.sleep/nap"], 2, "rukh preset list"],
  ["sleeper", ["profile", "rollback", "zzzz"], 2, "rukh profile history"],
  ["sleeper", ["profile", "set-config", files.badConfig], 4, "rukh profile show"],
  ["sleeper", ["runs", "show", "nope"], 2, "rukh runs list"],
  ["sleeper", ["tools", "list", "--preset", "nope"], 2, "rukh preset list"],
  ["sleeper", ["tools", "list", "--endpoint", "nope"], 2, "rukh mcp config --help"],
  ["sleeper", ["docs", "--preset", "nope"], 2, "rukh preset list"],
  [
    "sleeper",
    ["mcp", "config", "--client", "cursor", "--endpoint", "nope"],
    2,
    "rukh mcp config --help",
  ],
  ["sleeper", ["mcp", "config", "--client", "cursor", "--preset", "nope"], 2, "rukh preset list"],
  ["sleeper", ["mcp", "serve", "--endpoint", "a", "--preset", "b"], 2, "rukh mcp serve --help"],
  [
    "sleeper",
    ["mcp", "serve", "--http", "127.0.0.1:1", "--preset", "b"],
    2,
    "rukh mcp serve --help",
  ],
  ["sleeper", ["mcp", "serve", "--http", "nowhere"], 2, "rukh preset list"],
  // A new owner's: nothing published yet.
  ["fresh", ["tools", "list"], 4, "rukh ext install --help"],
  ["fresh", ["docs"], 4, "rukh ext install --help"],
  ["fresh", ["mcp", "serve", "--preset", "nope"], 2, "rukh preset list"],
  ["fresh", ["mcp", "serve", "--endpoint", "nope"], 2, "rukh mcp config --help"],
  ["fresh", ["profile", "rollback", "zzzz"], 2, "rukh profile history"],
  ["fresh", ["mcp", "serve", "--http", "nowhere"], 2, "rukh profile show"],
];

function run(home: string, args: readonly string[]) {
  return runCli({ args, stateDir: home, cwd: fresh, stdin: "ignore" });
}

it("ends every refusal of an administrative command with a line, in the brand's name, that runs as printed and exits 0", () => {
  const lines = new Map<string, string>();
  for (const [home, words, status, line] of failures()) {
    const root = homes()[home];
    const r = run(root, words);
    const printed = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("  $ "))
      .map((l) => l.slice(4));
    expect({ words, status: r.status, printed }, r.stderr).toEqual({
      words,
      status,
      printed: [line],
    });
    // The same line is the --json error's recovery (a server refuses --json first).
    const json = run(root, ["--json", ...words]);
    const serve = words[0] === "mcp" && words[1] === "serve";
    expect(json.status, words.join(" ")).toBe(serve ? 2 : status);
    expect(JSON.parse(json.stdout).error.recovery, words.join(" ")).toBe(
      serve ? "rukh mcp serve --help" : line,
    );
    lines.set(`${home}\0${line}`, root);
  }
  // Nothing a refusal printed names a command other than by the brand.
  const endpoint = run(homes().sleeper, ["mcp", "serve", "--endpoint", "nope"]).stderr;
  expect(endpoint).toContain(
    "`rukh mcp config --client claude-code` (or --client claude-desktop, vscode, cursor, codex, inspector) creates one",
  );
  for (const [key, root] of lines) {
    const line = key.slice(key.indexOf("\0") + 1);
    const ran = spawnSync("sh", ["-c", line], {
      encoding: "utf8",
      env: { ...env(), RUKH_HOME: root, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` },
      cwd: fresh,
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect({ line, status: ran.status }, ran.stderr).toEqual({ line, status: 0 });
  }
}, 120_000);
