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
import { runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, expect, it } from "vitest";

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

/** A copy of the built CLI (bin, dist, its manifest; dependencies linked). */
function copy(name: string): string {
  const dir = join(work, name);
  for (const part of ["bin", "dist", "package.json"])
    cpSync(join(app, part), join(dir, part), { recursive: true });
  symlinkSync(join(app, "node_modules"), join(dir, "node_modules"));
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

/** The runtime folder the build left: the Node that ran the build. */
const built = readdirSync(join(app, "dist/code-cache"));
const ownBuild = built.length === 1 && built[0] === runtime();
/** The cases that read this Node's own cache need the build to have run on it. */
const onBuildNode = it.skipIf(!ownBuild);
if (!ownBuild)
  console.log(
    `the build ran on another Node (${built.join(", ")}), not ${runtime()}: only the cases for a Node without its own cache run`,
  );

it("the build leaves a cache for the Node that ran it, and no other", () => {
  expect(built).toHaveLength(1);
  expect(built[0]).toMatch(/^node-\d+\.\d+\.\d+-[a-z0-9]+-v8-/);
  expect(help(app).stdout).toContain("Usage: rukh");
});

onBuildNode("hands V8 the cache of every file help compiles, and V8 takes it", () => {
  expect(existsSync(usageChunk(app).cache)).toBe(true);
  for (const [file, s] of watchedHelp(copy("taken")))
    expect(s, file).toEqual({ given: true, taken: true });
});

it("gives another Node build no cache: not its own folder's, nor one copied there from the build's", () => {
  const dir = copy("other-node");
  // On the build's Node, this process says it is another; elsewhere it is one.
  const other = ownBuild ? { node: "99.0.0", v8: "99.0.0.0-node.0" } : undefined;
  const otherRuntime = runtime({ ...process.versions, ...other });
  for (const [file, s] of watchedHelp(dir, other))
    expect(s, file).toEqual({ given: false, taken: false });
  // The build's caches, placed where that Node looks: made by another runtime, so never used.
  cpSync(join(dir, "dist/code-cache", built[0]!), join(dir, "dist/code-cache", otherRuntime), {
    recursive: true,
  });
  for (const [file, s] of watchedHelp(dir, other))
    expect(s, file).toEqual({ given: false, taken: false });
});

onBuildNode("runs a file edited to the same length as edited, never its stale cache", () => {
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

onBuildNode("compiles afresh past a cache V8 cannot use, and one that is not there", () => {
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
