#!/usr/bin/env node
// `pnpm release [--dry-run]`: version every package from its changesets and
// publish them. With --dry-run nothing is written or published: it shows the
// version plan (changeset status) and what each package would publish
// (pnpm publish --dry-run, which packs with workspace: ranges replaced).
import { execFileSync } from "node:child_process";

const dryRun = process.argv.includes("--dry-run");
const run = (cmd, args) => execFileSync(cmd, args, { stdio: "inherit" });

run("pnpm", ["turbo", "run", "build"]);
if (dryRun) {
  run("pnpm", ["changeset", "status", "--verbose"]);
  run("pnpm", [
    "-r",
    "--filter",
    "./packages/*",
    "publish",
    "--dry-run",
    "--no-git-checks",
    "--access",
    "public",
  ]);
} else {
  run("pnpm", ["changeset", "version"]);
  run("pnpm", ["install", "--lockfile-only"]);
  run("pnpm", ["turbo", "run", "build"]);
  run("pnpm", ["changeset", "publish"]);
}
