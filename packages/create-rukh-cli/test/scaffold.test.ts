import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PACK_WORKSPACE = fileURLToPath(
  new URL("../../../scripts/pack-workspace.mjs", import.meta.url),
);
const CREATE = fileURLToPath(new URL("../bin/create-rukh-cli.js", import.meta.url));

import { scaffold } from "../src/index.js";

const temp = mkdtempSync(join(tmpdir(), "create-rukh-cli-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("scaffold", () => {
  it("writes a branded CLI: its own name, binary and state directory", () => {
    const dir = join(temp, "unit");
    const files = scaffold({ name: "acme", dir });
    expect(files).toContain("bin/acme");
    expect(statSync(join(dir, "bin/acme")).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(dir, "src/main.ts"), "utf8")).toContain(
      'export const BRAND = "acme";',
    );
    expect(readFileSync(join(dir, "src/main.ts"), "utf8")).not.toContain("bin/rukh");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg.bin).toEqual({ acme: "./bin/acme" });
    expect(Object.keys(pkg.dependencies)).toContain("@rukh/mcp");
  });

  it.each(["Acme", "1acme", "acme cli", "", "a".repeat(40)])("rejects the name %j", (name) => {
    expect(() => scaffold({ name, dir: join(temp, "bad") })).toThrow(/expected/);
  });

  it("refuses a folder of tarballs that lacks one it needs, naming it", () => {
    const folder = join(temp, "few");
    mkdirSync(folder);
    writeFileSync(join(folder, "rukh-core-0.1.0.tgz"), "");
    expect(() => scaffold({ name: "acme", dir: join(temp, "few-acme"), packages: folder })).toThrow(
      /has no tarball of @rukh\/cli, @rukh\/command-result/,
    );
  });

  it("refuses a non-empty directory", () => {
    const dir = join(temp, "full");
    mkdirSync(dir);
    writeFileSync(join(dir, "keep.txt"), "x");
    expect(() => scaffold({ name: "acme", dir })).toThrow(/not empty/);
    expect(existsSync(join(dir, "package.json"))).toBe(false);
  });
});

// The real thing: scaffold, install the packages from locally packed
// tarballs (as a user would from the registry), build, run the new CLI's own
// tests and one command.
describe("a scaffolded CLI", () => {
  const dir = join(temp, "acme");
  let local: Record<string, string> = {};
  beforeAll(() => {
    // As a newcomer would: the two commands, under plain node, with no pnpm on PATH.
    const folder = mkdtempSync(join(temp, "tarballs-"));
    const plain = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    const packed = spawnSync(process.execPath, [PACK_WORKSPACE, folder], {
      env: plain,
      encoding: "utf8",
    });
    expect(packed.status, packed.stderr).toBe(0);
    expect(packed.stdout).toContain(`@rukh/harness ${join(folder, "rukh-harness-0.1.0.tgz")}`);
    const made = spawnSync(process.execPath, [CREATE, "acme", dir, "--packages", folder], {
      env: plain,
      encoding: "utf8",
    });
    expect(made.status, made.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    local = pkg.overrides;
    expect(pkg.dependencies["@rukh/core"]).toBe(`file:${join(folder, "rukh-core-0.1.0.tgz")}`);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: dir,
      stdio: "pipe",
    });
    execFileSync("npm", ["run", "build"], { cwd: dir, stdio: "pipe" });
  }, 300_000);

  it("passes its own tests", () => {
    const r = spawnSync("npm", ["test"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, CI: "true" },
    });
    const text = (r.stdout + r.stderr).replace(/\u001b\[[0-9;]*m/g, "");
    expect(text).toMatch(/Tests\s+\d+ passed/);
    expect(r.status).toBe(0);
  }, 120_000);

  it("runs as its own brand", () => {
    expect(execFileSync(join(dir, "bin/acme"), ["--version"], { encoding: "utf8" })).toBe(
      "acme 0.1.0\n",
    );
    // Its state directory is named by ACME_HOME: rukh's variable is not its business.
    const r = spawnSync(join(dir, "bin/acme"), ["doctor"], {
      encoding: "utf8",
      env: {
        ...process.env,
        RUKH_HOME: join(temp, "rukh-home"),
        ACME_HOME: join(temp, "acme-home"),
      },
    });
    expect(r.stdout).toContain(`state directory: ${join(temp, "acme-home")}`);

    expect(r.stdout).not.toContain("rukh-home");
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const help = execFileSync(join(dir, "bin/acme"), ["--help"], { encoding: "utf8" });
    expect(help).toContain("(ACME_HOME wins)");
  });

  // An extension author with nothing but the brand's CLI and the packages:
  // a project of their own, outside this repository.
  it("gives an extension author outside this repository the whole toolkit", () => {
    const acme = join(dir, "bin/acme");
    const env = { ...process.env, ACME_HOME: join(temp, "author-home") };
    const run = (args: string[], cwd: string) =>
      spawnSync(acme, args, { cwd, env, encoding: "utf8" });
    const project = join(temp, "author");
    mkdirSync(project);
    const made = run(["ext", "init", "hello", "--id", "jane.hello"], project);
    expect(made.status, made.stderr).toBe(0);
    // The skeleton speaks the brand's name.
    expect(readFileSync(join(project, "hello", "README.md"), "utf8")).toContain(
      "acme ext validate .",
    );
    expect(run(["ext", "validate", "hello"], project).status).toBe(0);
    expect(run(["ext", "link", "hello"], project).status).toBe(0);
    const ran = run(["hello", "hello", "Ada"], project);
    expect(ran.stdout, ran.stderr).toBe("Hello, Ada!\n");

    // The harness from the author's own test runner, installed like any package.
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "jane-hello-tests",
        private: true,
        type: "module",
        devDependencies: { "@rukh/harness": local["@rukh/harness"] },
        overrides: local,
      }),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: project,
      stdio: "pipe",
    });
    mkdirSync(join(project, "test"));
    writeFileSync(
      join(project, "test", "hello.test.mjs"),
      `import assert from "node:assert/strict";
import { test } from "node:test";
import { testExtension } from "@rukh/harness";

test("hello greets through the real core", async () => {
  const h = await testExtension(new URL("../hello", import.meta.url).pathname);
  try {
    const out = await h.call("hello", { name: "Ada" });
    assert.deepEqual(out.commandResult, { kind: "text", text: "Hello, Ada!\\n" });
    const bad = await h.call("hello", { name: "" });
    assert.equal(bad.reason, "invalid_input");
  } finally {
    await h.close();
  }
});
`,
    );
    const tested = spawnSync(process.execPath, ["--test", "test/hello.test.mjs"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(tested.stdout, tested.stderr).toContain("# pass 1");
    expect(tested.status).toBe(0);
  }, 300_000);
});
