#!/usr/bin/env node
// `pnpm release [--dry-run | --publish-current]`: version every package from
// its changesets and publish every public package to the registry npm's
// configuration names (`npm config get registry`, so `npm_config_registry`
// or a user configuration chooses it; the registry's token comes from the
// same configuration).
//
// --dry-run: nothing is written or published; it shows the version plan
// (changeset status) and what each package would publish (pnpm publish
// --dry-run, which packs with workspace: ranges replaced).
// --publish-current: publishes the packages as they are built now, at their
// current versions, without versioning or building (what the registry test
// does after the workspace's build); it refuses, in one line, a workspace
// that is not installed or not built.
import { execFileSync } from "node:child_process";
import { notPackable, pnpm } from "./pack-workspace.mjs";

const dryRun = process.argv.includes("--dry-run");
const current = process.argv.includes("--publish-current");
const [command, ...pre] = pnpm();
const run = (args) => execFileSync(command, [...pre, ...args], { stdio: "inherit" });

/** The one publish command: pnpm replaces workspace: ranges and skips versions already published. */
const publish = (...extra) =>
  run([
    "-r",
    "--filter",
    "./packages/*",
    "publish",
    "--no-git-checks",
    "--access",
    "public",
    ...extra,
  ]);

const registry = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
process.stderr.write(`release: ${dryRun ? "would publish" : "publishing"} to ${registry}\n`);

if (current) {
  const why = notPackable();
  if (why !== undefined) {
    process.stderr.write(`release: ${why}\n`);
    process.exit(1);
  }
  publish();
} else if (dryRun) {
  run(["turbo", "run", "build"]);
  run(["changeset", "status", "--verbose"]);
  publish("--dry-run");
} else {
  run(["turbo", "run", "build"]);
  run(["changeset", "version"]);
  run(["install", "--lockfile-only"]);
  run(["turbo", "run", "build"]);
  publish();
  run(["changeset", "tag"]);
}
