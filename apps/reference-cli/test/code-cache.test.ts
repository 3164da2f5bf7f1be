import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
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
import { runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, expect, it } from "vitest";
import { NOBODY, nobodyRukh } from "./_nobody.js";

// The bundle's files compile from the code cache the build made for them
// (bin/code-cache.js), and a cache is used only for the very Node build and
// source it was made from: V8 checks no more than a source's length, so a
// chunk edited to the same length with a stale cache beside it must run as
// edited, and a cache made by another Node is never handed to V8. Each case
// works on a copy of the built CLI.
const app = fileURLToPath(new URL("../", import.meta.url));
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "rukh-code-cache-test-"));
});
afterAll(() => removeDir(work));

/**
 * A copy of the built CLI (bin, dist, its manifest; dependencies linked),
 * run once unless `warm` is false: a cache is for the path it was made at,
 * so a copy makes its own on that first run.
 */
function copy(name: string, warm = true): string {
  const dir = join(work, name);
  for (const part of ["bin", "dist", "package.json"])
    cpSync(join(app, part), join(dir, part), { recursive: true });
  symlinkSync(join(app, "node_modules"), join(dir, "node_modules"));
  if (warm) expect(help(dir).status).toBe(0);
  return dir;
}

/** The cache folder of the Node build `versions` describes (this one's by default). */
const runtime = (versions: NodeJS.ProcessVersions = process.versions) =>
  `node-${versions.node}-${process.arch}-v8-${versions.v8}`;

const help = (dir: string, preload: string[] = []) =>
  runCli({
    via: [process.execPath, ...preload],
    bin: join(dir, "bin/rukh"),
    args: ["--help"],
    stateDir: join(work, "home"),
    env: { PATH: process.env.PATH },
  });

/**
 * Writes a preload, `hook`, that records for each script V8 compiles its
 * file, whether a cache was handed to V8 and whether V8 took it, into `log`
 * as the process exits; `versions` makes the process say it is another
 * Node build.
 */
function writeWatchHook(
  hook: string,
  log: string,
  versions?: Partial<NodeJS.ProcessVersions>,
): void {
  writeFileSync(
    hook,
    `const vm = require("node:vm");
const seen = [];
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    seen.push({ file: options.filename, given: options.cachedData !== undefined, taken: options.cachedData !== undefined && !this.cachedDataRejected });
  }
};
${versions === undefined ? "" : `Object.defineProperty(process, "versions", { value: { ...process.versions, ...${JSON.stringify(versions)} } });`}
process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(log)}, JSON.stringify(seen)));
`,
  );
}

/**
 * Runs help with every compilation of a bundle file watched, and returns,
 * per file, whether a cache was handed to V8 and whether V8 took it.
 * `versions` makes the process say it is another Node build.
 */
function watchedHelp(
  dir: string,
  versions?: Partial<NodeJS.ProcessVersions>,
): Map<string, { given: boolean; taken: boolean }> {
  const log = join(dir, "compiled.json");
  const hook = join(dir, "watch.cjs");
  writeWatchHook(hook, log, versions);
  const r = help(dir, ["--require", hook]);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("Usage: rukh");
  const seen: { file: string; given: boolean; taken: boolean }[] = JSON.parse(
    readFileSync(log, "utf8"),
  );
  expect(seen.length).toBeGreaterThan(0);
  return new Map(seen.map((s) => [s.file.slice(dir.length), { given: s.given, taken: s.taken }]));
}

/** The bundle file that prints the help's usage line, and its cache. */
function usageChunk(dir: string): { file: string; cache: string } {
  const files = ["rukh.cjs", ...readdirSync(join(dir, "dist/chunks")).map((f) => `chunks/${f}`)];
  const rel = files.find((f) => readFileSync(join(dir, "dist", f), "utf8").includes('"Usage:"'))!;
  return {
    file: join(dir, "dist", rel),
    cache: join(dir, "dist/code-cache", runtime(), `${rel.replace(/^chunks\//, "")}.v8`),
  };
}

/**
 * The runtime folders in the build's cache: the build's own, and those other
 * Nodes made on their first runs of this checkout (its Node matrix among them).
 */
const built = readdirSync(join(app, "dist/code-cache"));
/** Whether this Node has its cache beside the build's (made by the build, or by a first run). */
const ownBuild = built.includes(runtime());
/** The cases that read this Node's own cache need the build to have run on it. */
const onBuildNode = it.skipIf(!ownBuild);
if (!ownBuild)
  console.log(
    `no cache of ${runtime()} at the build's path yet (${built.join(", ")}): the case that reads one there is skipped`,
  );

it("keeps caches by runtime: one folder for each Node build, named by its version, machine and V8", () => {
  expect(built.length).toBeGreaterThan(0);
  for (const b of built) expect(b).toMatch(/^node-\d+\.\d+\.\d+-[a-z0-9]+-v8-/);
  expect(help(app).stdout).toContain("Usage: rukh");
});

it("hands V8 the cache of every file help compiles, and V8 takes it", () => {
  const dir = copy("taken");
  expect(existsSync(usageChunk(dir).cache)).toBe(true);
  for (const [file, s] of watchedHelp(dir)) expect(s, file).toEqual({ given: true, taken: true });
});

/** This process saying it is a Node build no cache was made for. */
const OTHER = { node: "99.0.0", v8: "99.0.0.0-node.0" };
const otherRuntime = runtime({ ...process.versions, ...OTHER });

it("gives another Node build no cache made by another: not one copied to where it looks", () => {
  const dir = copy("other-node");
  const made = readdirSync(join(dir, "dist/code-cache")).find((b) => b !== otherRuntime)!;
  // Another runtime's caches, placed where this one looks: never used.
  cpSync(join(dir, "dist/code-cache", made), join(dir, "dist/code-cache", otherRuntime), {
    recursive: true,
  });
  for (const [file, s] of watchedHelp(dir, OTHER))
    expect(s, file).toEqual({ given: false, taken: false });
});

onBuildNode(
  "gives a copy elsewhere none of the caches made at the build's path; it makes its own",
  () => {
    const dir = copy("moved", false);
    for (const [file, s] of watchedHelp(dir))
      expect(s, file).toEqual({ given: false, taken: false });
    for (const [file, s] of watchedHelp(dir)) expect(s, file).toEqual({ given: true, taken: true });
  },
);

it("lets a Node without a cache make its own on its first run and use it from then on", () => {
  const dir = copy("first-run");
  for (const [file, s] of watchedHelp(dir, OTHER))
    expect(s, file).toEqual({ given: false, taken: false });
  expect(readdirSync(join(dir, "dist/code-cache", otherRuntime)).length).toBeGreaterThan(0);
  for (const [file, s] of watchedHelp(dir, OTHER))
    expect(s, file).toEqual({ given: true, taken: true });
});

it("never hands V8 a cache damaged after its checksums, and makes it again", () => {
  const dir = copy("damaged-payload");
  watchedHelp(dir, OTHER);
  const folder = join(dir, "dist/code-cache", otherRuntime);
  for (const f of readdirSync(folder)) {
    const bytes = readFileSync(join(folder, f));
    // The checksums stay; one byte of the cache after them changes.
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    writeFileSync(join(folder, f), bytes);
  }
  for (const [file, s] of watchedHelp(dir, OTHER))
    expect(s, file).toEqual({ given: false, taken: false });
  for (const [file, s] of watchedHelp(dir, OTHER))
    expect(s, file).toEqual({ given: true, taken: true });
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
  // The digests of runtime, path and source, and of the cache, stay; what follows them is garbage.
  writeFileSync(cache, Buffer.concat([bytes.subarray(0, 64), Buffer.alloc(bytes.length - 64, 7)]));
  const r = help(damaged);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toContain("Usage: rukh");
  const none = copy("none");
  removeDir(join(none, "dist/code-cache"));
  expect(help(none).stdout).toContain("Usage: rukh");
});

// A user who may not write beside the build's caches (a root-owned global
// install run by someone else) keeps the caches of their Node in their own
// cache folder, and only while no one else may write that folder.
const nobody = nobodyRukh();
it.skipIf(typeof nobody === "string")(
  "as an unprivileged user: caches in the user's own cache folder, never in one others may write",
  () => {
    if (typeof nobody === "string") return;
    const tmp = mkdtempSync(join(tmpdir(), "rukh-code-cache-user-"));
    try {
      chmodSync(tmp, 0o755);
      const cacheHome = join(tmp, "cache");
      const home = join(tmp, "home");
      for (const d of [cacheHome, home]) {
        mkdirSync(d, { mode: 0o700 });
        chownSync(d, NOBODY, NOBODY);
      }
      const log = join(home, "compiled.json");
      const hook = join(tmp, "watch.cjs");
      writeWatchHook(hook, log, OTHER);
      const run = () => {
        const { command, args } = nobody(["--help"]);
        const r = spawnSync(command, args, {
          encoding: "utf8",
          env: {
            PATH: process.env.PATH,
            HOME: home,
            XDG_CACHE_HOME: cacheHome,
            RUKH_HOME: join(home, "state"),
            NODE_OPTIONS: `--require ${hook}`,
          },
        });
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(readFileSync(log, "utf8")) as { given: boolean; taken: boolean }[];
      };
      expect(run().every((s) => !s.given)).toBe(true);
      // Nothing beside the build's (not this user's to write); all in the user's folder.
      expect(existsSync(join(app, "dist/code-cache", otherRuntime))).toBe(false);
      const mine = join(cacheHome, "reference-cli-code-cache");
      const [digest] = readdirSync(mine);
      expect(readdirSync(join(mine, digest!, otherRuntime)).length).toBeGreaterThan(0);
      expect(run().every((s) => s.given && s.taken)).toBe(true);
      // A cache folder others may write is neither read nor written.
      chmodSync(join(mine, digest!, otherRuntime), 0o777);
      expect(run().every((s) => !s.given)).toBe(true);
    } finally {
      removeDir(tmp);
    }
  },
);
