import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listRuns } from "@rukh/core";
import { processesWith, removeDir } from "@rukh/testkit";
import { runCli, spawnCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sleeperState } from "./_sleeper.js";

// The shipped binary's confinement as users meet it: doctor tells the truth
// about the sandbox it would use, and a preset's concurrency limit holds
// across separate CLI processes on one state directory.
const LIMIT = 4;
const CALLS = 50;
let work: string;
let root: string;
const rukh = (args: string[], env: Record<string, string> = {}) =>
  runCli({ args, stateDir: root, env: { NO_COLOR: "1", ...env } });

const stateWith = (config: object = {}) =>
  sleeperState({
    prefix: "rukh-cli-confinement-",
    defaultMs: 1_500,
    maxConcurrency: LIMIT,
    config,
  });

beforeAll(async () => {
  ({ work, root } = await stateWith());
});
afterAll(() => removeDir(work));

/** Command processes of this state directory now running, seen from outside any pid namespace. */
const runningCommands = () => processesWith(join(root, "store"), "node").length;

it(`runs at most ${LIMIT} command processes for ${CALLS} parallel CLI calls, rejecting the rest at once`, async () => {
  const exits: Promise<number | null>[] = [];
  for (let i = 0; i < CALLS; i++) {
    const child = spawnCli({ args: ["nap"], stateDir: root }, "ignore");
    exits.push(new Promise((r) => child.once("exit", (code) => r(code))));
  }
  let most = 0;
  let settled = false;
  const all = Promise.all(exits).then((codes) => {
    settled = true;
    return codes;
  });
  while (!settled) {
    most = Math.max(most, runningCommands());
    await new Promise((r) => setTimeout(r, 10));
  }
  const codes = await all;
  const ok = codes.filter((c) => c === 0).length;
  const rejected = codes.filter((c) => c === 4).length;
  // Anything else is a failure to explain: the journal says what it was.
  const failed = await listRuns(root, { outcome: "execution_failed" });
  expect(ok + rejected, JSON.stringify(failed.map((r) => r.reason))).toBe(CALLS);
  expect(ok).toBeGreaterThanOrEqual(LIMIT);
  expect(rejected).toBeGreaterThan(0);
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThanOrEqual(LIMIT);
}, 120_000);

it("doctor and a strict call agree: a bwrap planted on PATH is never used, a configured one in a writable directory is refused", async () => {
  const fake = join(work, "planted");
  mkdirSync(fake);
  writeFileSync(join(fake, "bwrap"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const doctor = rukh(["doctor"], { PATH: `${fake}:/usr/bin:/bin` });
  expect(doctor.stdout).not.toContain(fake);
  const elsewhere = await stateWith({ sandbox: { program: join(fake, "bwrap") } });
  try {
    const r = runCli({
      args: ["doctor"],
      stateDir: elsewhere.root,
      env: { PATH: "/usr/bin:/bin" },
    });
    expect(r.stdout).toMatch(
      /strict profile: unavailable, strict commands will be rejected: .*(writable by group or others|owned by uid)/,
    );
  } finally {
    removeDir(elsewhere.work);
  }
});
