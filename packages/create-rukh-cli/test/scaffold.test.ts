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
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packWorkspace } from "../../../scripts/pack-workspace.mjs";
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
  beforeAll(() => {
    const tarballs = packWorkspace(mkdtempSync(join(temp, "tarballs-")));
    scaffold({ name: "acme", dir });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const local = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
    for (const name of Object.keys(pkg.dependencies)) pkg.dependencies[name] = local[name];
    pkg.overrides = local;
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
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
    const r = spawnSync(join(dir, "bin/acme"), ["trust", "list"], {
      encoding: "utf8",
      env: { ...process.env, RUKH_HOME: join(temp, "acme-home") },
    });
    expect(r.stdout).toContain("no trusted publishers");
    expect(r.status).toBe(0);
  });
});
