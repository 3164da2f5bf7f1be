import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDir } from "@rukh/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";

// The bundle's files compile from the code cache the build made for them
// (bin/code-cache.js), and a cache is used only for the very source it was
// made from: V8 checks no more than a source's length, so a chunk edited to
// the same length with a stale cache beside it must run as edited. Each case
// works on a copy of the built CLI.
const app = fileURLToPath(new URL("../", import.meta.url));
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "rukh-code-cache-test-"));
});
afterAll(() => removeDir(work));

/** A copy of the built CLI (bin, dist, its manifest; dependencies linked). */
function copy(name: string): string {
  const dir = join(work, name);
  for (const part of ["bin", "dist", "package.json"])
    cpSync(join(app, part), join(dir, part), { recursive: true });
  symlinkSync(join(app, "node_modules"), join(dir, "node_modules"));
  return dir;
}

const help = (dir: string) =>
  spawnSync(process.execPath, [join(dir, "bin/rukh"), "--help"], {
    env: { PATH: process.env.PATH, RUKH_HOME: join(work, "home") },
    encoding: "utf8",
  });

/** The bundle file that prints the help's usage line, and its cache. */
function usageChunk(dir: string): { file: string; cache: string } {
  const files = ["rukh.cjs", ...readdirSync(join(dir, "dist/chunks")).map((f) => `chunks/${f}`)];
  const rel = files.find((f) => readFileSync(join(dir, "dist", f), "utf8").includes('"Usage:"'))!;
  return {
    file: join(dir, "dist", rel),
    cache: join(dir, "dist/code-cache", `${rel.replace(/^chunks\//, "")}.v8`),
  };
}

it("the build leaves a cache for the file that prints help", () => {
  const { cache } = usageChunk(app);
  expect(existsSync(cache)).toBe(true);
  expect(help(app).stdout).toContain("Usage: rukh");
});

it("runs a file edited to the same length as edited, never its stale cache", () => {
  const dir = copy("edited");
  const { file, cache } = usageChunk(dir);
  expect(existsSync(cache)).toBe(true);
  const source = readFileSync(file, "utf8");
  const edited = source.replaceAll('"Usage:"', '"Usxge:"');
  expect(edited.length).toBe(source.length);
  writeFileSync(file, edited);
  const r = help(dir);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("Usxge: rukh");
  expect(r.stdout).not.toContain("Usage: ");
});

it("compiles afresh past a cache V8 cannot use, and one that is not there", () => {
  const damaged = copy("damaged");
  const { cache } = usageChunk(damaged);
  const bytes = readFileSync(cache);
  // The digest stays right; what follows it is garbage.
  writeFileSync(cache, Buffer.concat([bytes.subarray(0, 32), Buffer.alloc(bytes.length - 32, 7)]));
  const r = help(damaged);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("Usage: rukh");
  const none = copy("none");
  removeDir(join(none, "dist/code-cache"));
  expect(help(none).stdout).toContain("Usage: rukh");
});
