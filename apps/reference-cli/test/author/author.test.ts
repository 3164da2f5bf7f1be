import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeTestPasses, removeDir } from "@rukh/testkit";
import { RUKH_BIN, runCli } from "@rukh/testkit/cli";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { buildExamples } from "../../scripts/examples.mjs";
import { authorWork, mcpRequests, toolCall } from "../_author.js";
import { nobodyRukh } from "../_nobody.js";

// An author's keys and signature, from the built CLI: keygen, ext sign, and
// an owner who trusts the new key installing and running the package.
const { work, env, rukh } = authorWork("rukh-cli-author-", undefined, true);

describe("keygen and ext sign", () => {
  it("make a key pair only the owner can read, sign a package that installs and runs, and never print the private key", async () => {
    const made = rukh("--json", "keygen", "jane", "--out", work);
    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout + made.stderr).not.toContain("PRIVATE KEY");
    const result = JSON.parse(made.stdout).result;
    expect(result.privateKey).toBe(join(work, "jane.key"));
    expect(statSync(result.privateKey).mode & 0o777).toBe(0o600);
    expect(readFileSync(result.privateKey, "utf8")).toContain("BEGIN PRIVATE KEY");
    expect(readFileSync(result.publicKey, "utf8")).toBe(`${result.publicKeyBase64}\n`);

    // Never over an existing key.
    const again = rukh("keygen", "jane", "--out", work);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain(`${join(work, "jane.key")} already exists`);

    // The example package (runtime vendored), now Jane's.
    const built: Record<string, string> = await buildExamples(join(work, "examples"));
    // Never into a package directory, whose every file is published.
    const intoPackage = rukh("keygen", "jim", "--out", join(work, "examples", "acme-tools"));
    expect(intoPackage.status).toBe(2);
    expect(intoPackage.stderr).toContain("is a package directory");

    const pkg = join(work, "jane-tools");
    cpSync(built["acme-tools"]!, pkg, { recursive: true });
    const descriptor = JSON.parse(readFileSync(join(pkg, "rukh-extension.json"), "utf8"));
    writeFileSync(
      join(pkg, "rukh-extension.json"),
      JSON.stringify({ ...descriptor, publisher: "jane" }, null, 2),
    );
    const signed = rukh("ext", "sign", pkg, "--key", result.privateKey);
    expect(signed.status, signed.stderr).toBe(0);
    expect(signed.stdout).toContain(`as jane`);
    expect(signed.stdout).toContain(result.publicKeyBase64);
    expect(existsSync(join(pkg, "rukh-signature.json"))).toBe(true);

    const trusted = rukh(
      "trust",
      "add",
      result.publicKey,
      "--publisher",
      "jane",
      "--namespace",
      "acme.tools",
    );
    expect(trusted.status, trusted.stderr).toBe(0);
    const installed = rukh("ext", "install", pkg);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain("installed acme.tools");
    const ran = rukh("acme", "greet", "Ada");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toContain("Ada");
  });

  it("ext validate reports every problem an install would, and the signature's state", () => {
    const pkg = join(work, "jane-tools");
    const good = JSON.parse(rukh("--json", "ext", "validate", pkg).stdout).result;
    expect(good).toMatchObject({
      ok: true,
      problems: [],
      extension: { id: "acme.tools", publisher: "jane" },
      signature: { state: "current", publisher: "jane", verified: true },
    });

    const broken = join(work, "broken-tools");
    cpSync(pkg, broken, { recursive: true });
    const descriptor = JSON.parse(readFileSync(join(broken, "rukh-extension.json"), "utf8"));
    descriptor.commands[0].sumary = "typo";
    descriptor.commands[1].execute.program = "bin/missing.mjs";
    const text = JSON.stringify(descriptor, null, 2);
    writeFileSync(join(broken, "rukh-extension.json"), text);
    const r = rukh("ext", "validate", broken);
    expect(r.status).toBe(4);
    // Where an editor shows the typo: its line and column.
    const lines = text.split("\n");
    const line = lines.findIndex((l) => l.includes('"sumary"'));
    const at = `${line + 1}:${lines[line]!.indexOf('"sumary"') + 1}`;
    expect(r.stdout).toContain(
      `rukh-extension.json:${at} /commands/0/sumary: unknown field "sumary"; did you mean summary?`,
    );
    expect(r.stdout).toContain(
      "rukh-signature.json /manifestDigest: the files changed since the package was signed",
    );
    expect(r.stdout).toMatch(/problems?; signed by jane for other files/);
    // A missing top-level member is placed at the object that lacks it.
    const { publisher: _, ...anonymous } = descriptor;
    writeFileSync(join(broken, "rukh-extension.json"), JSON.stringify(anonymous, null, 2));
    expect(rukh("ext", "validate", broken).stdout).toContain(
      "rukh-extension.json:1:1 /publisher: field publisher is required (missing_field)",
    );

    // Fixed but not yet signed again: the program is missing, and install would say the same.
    delete descriptor.commands[0].sumary;
    writeFileSync(join(broken, "rukh-extension.json"), JSON.stringify(descriptor, null, 2));
    const missing = JSON.parse(rukh("--json", "ext", "validate", broken).stdout).result;
    expect(missing.problems.map((p: { code: string }) => p.code).sort()).toEqual([
      "digest_mismatch",
      "missing_program",
    ]);
  });

  it("shows the author where a result missed its declaration, on the CLI and over MCP", async () => {
    // An extension command's usage error under --json: the envelope docs/cli.md shows.
    const r = rukh("--json", "acme", "greet", "--zzz", "1");
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 2, stderr: "" });
    expect(r.stdout).toBe(
      `${JSON.stringify({
        rukhOutput: 2,
        command: "acme greet",
        error: {
          code: "usage",
          message: "unknown flag --zzz",
          exitCode: 2,
          recovery: "rukh acme greet --help",
        },
      })}\n`,
    );
    const cli = rukh("acme", "misbehave", "bad-result");
    expect(cli.status).toBe(3);
    expect(cli.stderr).toContain("(execution_failed/invalid_result)");
    expect(cli.stderr).toContain("  /data/ok: found a string; expected a boolean (type_mismatch)");

    expect(rukh("expose", "add", "acme.tools").status).toBe(0);
    const tools = JSON.parse(rukh("--json", "tools", "list").stdout).result.tools;
    const name = tools.find(
      (t: { identity: string }) => t.identity === "acme.tools/misbehave",
    ).name;
    const [reply] = await mcpRequests(
      env,
      ["--preset", "default"],
      [toolCall(name, { mode: "bad-result" })],
    );
    if (reply === undefined) throw new Error("no answer");
    expect(reply.result.structuredContent).toMatchObject({ reason: "invalid_result" });
    expect(JSON.parse(reply.result.content[1].text)).toEqual({
      message: "the command's result does not match its declaration",
      issues: [
        { path: "/data/ok", code: "type_mismatch", message: "found a string; expected a boolean" },
      ],
    });
    // The CLI's --json holds the same diagnostic beside the same envelope.
    const json = JSON.parse(rukh("--json", "acme", "misbehave", "bad-result").stdout).outcome;
    expect(json.diagnostic).toEqual(JSON.parse(reply.result.content[1].text));
    const { diagnostic: _, ...envelope } = json;
    expect(Object.keys(envelope).sort()).toEqual(
      Object.keys(reply.result.structuredContent).sort(),
    );
    const run = JSON.parse(
      rukh("--json", "runs", "show", reply.result.structuredContent.invocationId).stdout,
    ).result.run;
    expect(run.resultIssues).toEqual([{ path: "/data/ok", code: "type_mismatch" }]);
  });

  it("ext init writes a package that tests, validates, signs, installs and runs unchanged", () => {
    const pkg = join(work, "hello-ext");
    const made = rukh("ext", "init", pkg, "--id", "jane.greeter");
    expect(made.status, made.stderr).toBe(0);
    const descriptor = JSON.parse(readFileSync(join(pkg, "rukh-extension.json"), "utf8"));
    expect(descriptor.$schema).toBe("https://rukh.dev/schemas/rukh.extension.schema.json");
    // The README's next commands, their comments in one column.
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    const block = readme.slice(
      readme.indexOf("```sh\n") + 6,
      readme.indexOf("\n```", readme.indexOf("```sh")),
    );
    const columns = block.split("\n").flatMap((l) => (l.includes(" # ") ? [l.indexOf(" # ")] : []));
    expect(columns.length).toBeGreaterThanOrEqual(4);
    expect(new Set(columns).size).toBe(1);
    expect(block).toContain("rukh ext sign . --key ../jane.key # after every change");
    // Its own test passes with plain node.
    const tested = spawnSync(process.execPath, ["--test"], { cwd: pkg, encoding: "utf8" });
    expect(tested.status, tested.stdout).toBe(0);
    expect(nodeTestPasses(tested.stdout), tested.stdout).toBe(1);
    const checked = rukh("ext", "validate", pkg);
    expect(checked.status, checked.stdout).toBe(0);
    expect(checked.stdout).toContain("valid — jane.greeter@0.1.0, 1 command; unsigned");
    // A key inside the package would be published with it.
    writeFileSync(join(pkg, "inside.key"), readFileSync(join(work, "jane.key")));
    chmodSync(join(pkg, "inside.key"), 0o600);
    const inside = rukh("ext", "sign", pkg, "--key", join(pkg, "inside.key"));
    expect(inside.status).toBe(2);
    expect(inside.stderr).toContain("is inside the package it would sign");
    unlinkSync(join(pkg, "inside.key"));
    expect(rukh("ext", "sign", pkg, "--key", join(work, "jane.key")).status).toBe(0);
    // Jane is trusted for her own namespace (jane.*) as well as acme.tools.
    const installed = rukh("ext", "install", pkg);
    expect(installed.status, installed.stderr).toBe(0);
    const ran = rukh("greeter", "hello", "Ada");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toBe("Hello, Ada!\n");
    // Again into the same directory: refused, nothing overwritten.
    const twice = rukh("ext", "init", pkg, "--id", "jane.greeter");
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain("is not empty");
  });

  it("ext pack writes a signed, self-contained .tgz that installs anywhere, leaving the source as it was", () => {
    // The source without its runtime or signature: pack vendors and signs a staged copy.
    const src = join(work, "greeter-src");
    cpSync(join(work, "hello-ext"), src, { recursive: true });
    rmSync(join(src, "node_modules"), { recursive: true });
    rmSync(join(src, "rukh-signature.json"));
    // An npm package's runtime is npm's to install.
    const npmPackage = rukh("ext", "pack", src, "--key", join(work, "jane.key"));
    expect(npmPackage.status).toBe(2);
    expect(npmPackage.stderr).toContain(
      "has no runtime under node_modules/@rukh/ipc; run npm install there first",
    );
    // Without a package.json, the runtime is pack's to vendor.
    rmSync(join(src, "package.json"));
    rmSync(join(src, "vendor"), { recursive: true });
    const unsigned = rukh("ext", "pack", src);
    expect(unsigned.status).toBe(2);
    expect(unsigned.stderr).toContain("give --key <file> to sign");
    const out = join(work, "greeter.tgz");
    const packed = rukh("--json", "ext", "pack", src, "--key", join(work, "jane.key"), "-o", out);
    expect(packed.status, packed.stderr).toBe(0);
    expect(JSON.parse(packed.stdout).result).toMatchObject({
      id: "jane.greeter",
      file: out,
      publisher: "jane",
    });
    expect(existsSync(join(src, "node_modules"))).toBe(false);
    expect(existsSync(join(src, "rukh-signature.json"))).toBe(false);
    const again = rukh("ext", "pack", src, "--key", join(work, "jane.key"), "-o", out);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("already exists");
    const packTo = (file: string) =>
      rukh("ext", "pack", src, "--key", join(work, "jane.key"), "-o", file);
    const inside = packTo(join(src, "x.tgz"));
    expect(inside.status).toBe(2);
    expect(inside.stderr).toContain("is inside the package");
    // A private key anywhere in the package is refused, whatever its name.
    writeFileSync(join(src, "..notes"), readFileSync(join(work, "jane.key")));
    const leaked = packTo(join(work, "y.tgz"));
    expect(leaked.status).toBe(2);
    expect(leaked.stderr).toContain("holds a private key");
    rmSync(join(src, "..notes"));

    // Another owner, another state directory: the file alone is enough.
    const other = join(work, "other-home");
    const there = (...args: string[]) => runCli({ args, stateDir: other });
    expect(there("trust", "add", join(work, "jane.pub"), "--publisher", "jane").status).toBe(0);
    const installed = there("ext", "install", out);
    expect(installed.status, installed.stderr).toBe(0);
    expect(there("greeter", "hello", "Bo").stdout).toBe("Hello, Bo!\n");
  });

  it("refuses a private key others can read, saying how to fix it", () => {
    const key = join(work, "open.key");
    writeFileSync(key, readFileSync(join(work, "jane.key")));
    chmodSync(key, 0o644);
    const r = rukh("ext", "sign", join(work, "jane-tools"), "--key", key);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`can be read by others (mode 644)`);
    expect(r.stderr).toContain(`chmod 600 ${key}`);
  });

  it("refuses a publisher id that is not one, and writes nothing", () => {
    const r = rukh("keygen", "Jane Doe", "--out", work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("expected a lowercase publisher id");
    expect(existsSync(join(work, "Jane Doe.key"))).toBe(false);
  });
});

describe("keygen --out", () => {
  it("makes a missing folder, and the folders above it, for the owner alone", () => {
    const r = rukh("keygen", "jane", "--out", "keys/team");
    expect(r.status, r.stderr).toBe(0);
    for (const dir of ["keys", "keys/team"]) {
      const st = statSync(join(work, dir));
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777, dir).toBe(0o700);
    }
    expect(statSync(join(work, "keys/team/jane.key")).mode & 0o777).toBe(0o600);
    expect(existsSync(join(work, "keys/team/jane.pub"))).toBe(true);
  });

  it("names a file in the way, as a usage error, and writes nothing", () => {
    writeFileSync(join(work, "not-a-folder"), "x");
    for (const out of ["not-a-folder", "not-a-folder/keys"]) {
      const r = rukh("keygen", "jane", "--out", out);
      expect(r.status, out).toBe(2);
      expect(r.stderr).toContain(
        `--out ${out}: ${join(work, "not-a-folder")} is not a directory; expected a directory for the keys`,
      );
      expect(r.stderr).toContain("$ rukh keygen --help");
      expect(r.stderr).not.toMatch(/ENOTDIR|EEXIST/);
    }
    expect(readFileSync(join(work, "not-a-folder"), "utf8")).toBe("x");
  });

  // Root writes anywhere: the refusal is seen as a user without the right (uid 65534 under setpriv).
  const asRoot = process.getuid?.() === 0;
  const asNobody = asRoot ? nobodyRukh() : undefined;
  if (typeof asNobody === "string")
    console.warn(`keygen's denied-folder case skipped: ${asNobody}`);
  it.skipIf(typeof asNobody === "string")(
    "names a folder it may not write to, as a usage error",
    () => {
      const open = mkdtempSync(join(tmpdir(), "rukh-keygen-denied-"));
      try {
        chmodSync(open, 0o755);
        const locked = join(open, "locked");
        mkdirSync(locked, { mode: 0o555 });
        chmodSync(locked, 0o555);
        const run = (out: string) => {
          const args = ["keygen", "jane", "--out", out];
          const as =
            asNobody === undefined || typeof asNobody === "string"
              ? { command: RUKH_BIN, args }
              : asNobody(args);
          return spawnSync(as.command, as.args, {
            encoding: "utf8",
            cwd: open,
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin", RUKH_HOME: join(open, "home") },
          });
        };
        const inside = run(join(locked, "keys"));
        expect(inside.status, inside.stderr).toBe(2);
        expect(inside.stderr).toContain(
          `--out ${join(locked, "keys")}: cannot make ${join(locked, "keys")}: permission denied`,
        );
        const into = run(locked);
        expect(into.status, into.stderr).toBe(2);
        expect(into.stderr).toContain(
          `cannot write ${join(locked, "jane.key")}: permission denied`,
        );
        expect(`${inside.stderr}${into.stderr}`).not.toMatch(/EACCES/);
      } finally {
        removeDir(open);
      }
    },
  );
});
