// The build's first step keeps the launcher named for the brand.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { BIN_NAME_SOURCE } from "../src/_bin-name.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function brand(bin: unknown, files: readonly string[] = ["bin/acme"]): string {
  const dir = mkdtempSync(join(tmpdir(), "rukh-bin-name-"));
  dirs.push(dir);
  mkdirSync(join(dir, "bin"));
  for (const f of files) writeFileSync(join(dir, f), "#!/usr/bin/env node\n");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "acme", bin }));
  writeFileSync(join(dir, "bin-name.mjs"), BIN_NAME_SOURCE);
  return dir;
}

const run = (dir: string) =>
  spawnSync(process.execPath, ["bin-name.mjs"], { cwd: dir, encoding: "utf8" });
const binOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).bin;

it("moves the launcher when the brand was renamed, and says so", () => {
  const dir = brand({ zeta: "./bin/acme" });
  const r = run(dir);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toBe("moved ./bin/acme to ./bin/zeta: the brand is zeta\n");
  expect(existsSync(join(dir, "bin/zeta"))).toBe(true);
  expect(existsSync(join(dir, "bin/acme"))).toBe(false);
  expect(binOf(dir)).toEqual({ zeta: "./bin/zeta" });
  // Run again, it changes nothing.
  expect(run(dir)).toMatchObject({ status: 0, stdout: "" });
});

it.each<[string, unknown, readonly string[], string]>([
  [
    "two commands",
    { a: "./bin/a", b: "./bin/b" },
    ["bin/a", "bin/b"],
    "bin must name exactly one command",
  ],
  ["no bin", undefined, [], "bin must name exactly one command"],
  [
    "the new name's file exists",
    { zeta: "./bin/acme" },
    ["bin/acme", "bin/zeta"],
    "but ./bin/zeta exists too",
  ],
])("refuses %s in one line and moves nothing", (_name, bin, files, message) => {
  const dir = brand(bin, files);
  const r = run(dir);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(message);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  for (const f of files) expect(existsSync(join(dir, f))).toBe(true);
  expect(binOf(dir)).toEqual(bin);
});
