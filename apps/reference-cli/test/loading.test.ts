import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@rukh/testkit/cli";
import { expect, it } from "vitest";
import { useSleeperCli } from "./_sleeper.js";

// What each path of the built binary loads, observed in the real process: a
// preloaded hook records every file it required, and the bundle's own map
// (dist/bundle.json) says which source files each holds. Help and
// completion read the route cache and nothing else of the profile; a run
// loads the core but no MCP host; nothing of the CLI loads the OAuth
// resource server unless it serves HTTP.
const { at } = useSleeperCli("rukh-cli-loading-");
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const holds: Record<string, string[]> = JSON.parse(readFileSync(join(dist, "bundle.json"), "utf8"));

/**
 * What the process of `rukh <args>` holds as it exits: the JavaScript
 * expression `what` (a string, or a list joined by lines), written by a
 * preloaded hook.
 */
function atExit(what: string, args: readonly string[]): string {
  const log = join(at.work, "at-exit.log");
  const hook = join(at.work, "at-exit.cjs");
  rmSync(log, { force: true });
  writeFileSync(
    hook,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(log)}, ${what}));\n`,
  );
  const r = runCli({
    via: [process.execPath, "--require", hook],
    args,
    stateDir: at.root,
    env: { PATH: process.env.PATH, NO_COLOR: "1" },
  });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(log, "utf8");
}

/** The workspace source files (`<package>/<file>`) `rukh <args>` loads. */
function loaded(...args: string[]): Set<string> {
  // Every file the process required.
  const files = atExit('Object.keys(require.cache).join("\\n")', args);
  const sources = new Set<string>();
  for (const file of files.split("\n")) {
    if (!file.startsWith(dist)) continue;
    for (const input of holds[file.slice(dist.length)] ?? [])
      sources.add(input.replace(/^(\.\.\/)+packages\//, "").replace("/dist/", "/"));
  }
  // The hook saw the bundle itself (or it would prove nothing).
  expect(sources.has("cli/_cli.js")).toBe(true);
  return sources;
}

const of = (sources: Set<string>, pkg: string) =>
  [...sources].filter((s) => s.startsWith(`${pkg}/`)).sort();
// The route cache's reader and what it is built from: all of the profile that help may load.
const ROUTE_CACHE = [
  "profile/route-cache.js",
  "profile/routes/_bounded-reads.js",
  "profile/routes/_route-buckets.js",
  "profile/routes/_route-cache.js",
  "profile/routes/_route-check.js",
  "profile/routes/_statedir-check.js",
  "profile/routes/_statedir.js",
  "profile/routes/index.js",
];

it("help, a group's help and completion load the route cache's reader and nothing else of the profile, no descriptor, core or MCP", () => {
  for (const args of [["--help"], ["--version"], ["ext", "--help"], ["__complete", "--", "na"]]) {
    const sources = loaded(...args);
    expect(of(sources, "profile"), args.join(" ")).toEqual(ROUTE_CACHE);
    for (const pkg of ["descriptor", "core", "ipc", "mcp", "oauth", "harness", "command-result"])
      expect(of(sources, pkg), `${args.join(" ")}: ${pkg}`).toEqual([]);
    expect(sources.has("cli/running/_run-command.js")).toBe(false);
  }
});

it("a command run loads the core and the profile but no MCP host, OAuth or test harness", () => {
  const sources = loaded("nap", "--wait-ms", "0");
  expect(sources.has("cli/running/_run-command.js")).toBe(true);
  expect(of(sources, "core").length).toBeGreaterThan(0);
  expect(sources.has("profile/_state.js")).toBe(true);
  for (const pkg of ["mcp", "oauth", "harness"]) expect(of(sources, pkg), pkg).toEqual([]);
});

it("an administrative command loads the profile, and neither the core nor MCP unless it needs them", () => {
  const sources = loaded("ext", "list");
  expect(sources.has("profile/_state.js")).toBe(true);
  for (const pkg of ["core", "mcp", "oauth", "harness"]) expect(of(sources, pkg), pkg).toEqual([]);
});

it("help and completion load no built-in they do not use: neither node:fs/promises nor what it brings (readline, the REPL's history)", () => {
  for (const args of [["--help"], ["__complete", "--", "na"]]) {
    const builtins = atExit('process.moduleLoadList.join("\\n")', args).split("\n");
    // The hook saw the process (node:fs is loaded by every start).
    expect(builtins).toContain("NativeModule fs");
    for (const name of ["fs/promises", "internal/fs/promises", "internal/readline/interface"])
      expect(builtins, `${args.join(" ")}: ${name}`).not.toContain(`NativeModule ${name}`);
  }
});

it("help, a group's help, completion and --version load no node:crypto once the code and route caches are recorded as checked; a command run does", () => {
  const builtins = (args: string[]) =>
    atExit('process.moduleLoadList.join("\\n")', args).split("\n");
  for (const args of [["--help"], ["--version"], ["ext", "--help"], ["__complete", "--", "na"]]) {
    // The first start may hash what it reads, and records it as checked.
    builtins(args);
    const again = builtins(args);
    expect(again).toContain("NativeModule fs");
    expect(again, args.join(" ")).not.toContain("NativeModule crypto");
  }
  // Its channel to the command's process is authenticated: a run hashes.
  expect(builtins(["nap", "--wait-ms", "0"])).toContain("NativeModule crypto");
});

it("a command run loads neither node:zlib (packing) nor perf_hooks (a clock the run does not need)", () => {
  const builtins = atExit('process.moduleLoadList.join("\\n")', ["nap", "--wait-ms", "0"]).split(
    "\n",
  );
  // The hook saw a run: its channel loaded node:crypto.
  expect(builtins).toContain("NativeModule crypto");
  for (const name of ["zlib", "perf_hooks"])
    expect(builtins, name).not.toContain(`NativeModule ${name}`);
});

it("the first help after a publication loads no node:crypto: the publication recorded the files it wrote as checked", () => {
  const builtins = (args: string[]) =>
    atExit('process.moduleLoadList.join("\\n")', args).split("\n");
  // The code cache recorded as checked (a first start may compile and hash).
  builtins(["--help"]);
  for (const args of [
    ["ext", "disable", "fx.sleep"],
    ["ext", "enable", "fx.sleep"],
  ]) {
    const r = runCli({ args, stateDir: at.root, env: { PATH: process.env.PATH } });
    expect(r.status, r.stderr).toBe(0);
  }
  for (const args of [["--help"], ["__complete", "--", "na"]]) {
    const first = builtins(args);
    expect(first).toContain("NativeModule fs");
    expect(first, args.join(" ")).not.toContain("NativeModule crypto");
  }
});
