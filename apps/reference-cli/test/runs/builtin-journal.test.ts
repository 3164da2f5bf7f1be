import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fillFileSystem, removeDir } from "@rukh/testkit";
import { runCli, spawnCli } from "@rukh/testkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { sleeperState } from "../_sleeper.js";

// The brand's own commands that change the owner's state (install, trust,
// presets, exposure, the profile, launches) pass the core's admission for
// built-ins and leave one run in the journal, as an extension command's call
// does: who ran which, when, how it ended and the revision it published.
// None of them changes anything the journal has not first recorded as begun.

const works: string[] = [];
afterAll(() => {
  for (const w of works) removeDir(w);
});

async function state(prefix: string) {
  const made = await sleeperState({ prefix, defaultMs: 1, maxConcurrency: 2 });
  works.push(made.work);
  const rukh = (args: string[], env: Record<string, string> = {}) =>
    runCli({ args, stateDir: made.root, env });
  const json = (args: string[], env: Record<string, string> = {}) => {
    const r = rukh(["--json", ...args], env);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout).result;
  };
  /** The runs of built-ins, oldest first. */
  const builtinRuns = (env: Record<string, string> = {}) =>
    (json(["runs", "list", "--limit", "200"], env).runs as Record<string, unknown>[])
      .filter((r) => String(r.command).startsWith("builtin:"))
      .reverse();
  const history = () => (json(["profile", "history"]) as { id: string }[]).map((r) => r.id);
  return { ...made, rukh, json, builtinRuns, history };
}

describe("built-in commands in the journal", () => {
  it("record who changed what, when and how it ended; reads leave no run", async () => {
    const s = await state("rukh-builtin-runs-");
    const changes = [
      ["preset", "deny", "default", "fx.sleep/*"],
      ["expose", "add", "fx.sleep"],
      ["ext", "disable", "fx.sleep"],
      ["ext", "enable", "fx.sleep"],
      ["preset", "allow", "default", "fx.sleep/*"],
    ];
    const unchanged = ["preset", "allow", "default", "fx.sleep/*"];
    for (const args of [...changes, unchanged]) {
      const r = s.rukh(args);
      expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    for (const read of [
      ["preset", "list"],
      ["ext", "list"],
      ["profile", "show"],
      ["runs", "list"],
      ["profile", "gc", "--dry-run"],
    ])
      expect(s.rukh(read).status).toBe(0);
    const runs = s.builtinRuns();
    expect(runs.map((r) => r.command)).toEqual(
      [...changes, unchanged].map((a) => `builtin:${a.slice(0, 2).join(" ")}`),
    );
    // `profile history` lists the newest first.
    const published = s.history().slice(0, changes.length).reverse();
    for (const run of runs)
      expect(run).toMatchObject({
        surface: "cli",
        subject: expect.any(String),
        actor: "rukh-cli",
        taskAuthorityRef: "local",
        outcome: "succeeded",
        reason: "completed",
        inputsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        startedAt: expect.any(String),
      });
    // Each change names the revision it published; the one that changed nothing, none.
    expect(runs.map((r) => r.published)).toEqual([...published, undefined]);
    // One line each in the human listing, and the revision it published in its details.
    const listed = s.rukh(["runs", "list", "--command", "builtin:expose add"]);
    expect(listed.stdout).toMatch(/ {2}cli {2}builtin:expose add {2}succeeded\/completed /);
    const shown = s.rukh(["runs", "show", String(runs[1]!.invocationId)]);
    expect(shown.stdout).toContain(`published: ${runs[1]!.published}`);
  });

  it("record a change refused as the command's outcome, with the exit code it had", async () => {
    const s = await state("rukh-builtin-refused-");
    const usage = s.rukh(["preset", "allow", "nosuch", "fx.sleep/*"]);
    expect(usage.status).toBe(2);
    const refused = s.rukh(["ext", "install", join(s.work, "missing.tgz")]);
    expect(refused.status).not.toBe(0);
    const runs = s.builtinRuns();
    expect(runs[0]).toMatchObject({
      command: "builtin:preset allow",
      outcome: "rejected",
      reason: "invalid_input",
    });
    expect(runs[1]).toMatchObject({ command: "builtin:ext install" });
    expect(runs[1]!.outcome).not.toBe("succeeded");
    expect(runs.every((r) => r.published === undefined)).toBe(true);
  });

  it("a built-in killed with -9 mid-change is finished as host_lost, and nothing was published", async () => {
    const s = await state("rukh-builtin-killed-");
    const fifo = join(s.work, "config.fifo");
    execFileSync("mkfifo", [fifo]);
    const before = s.history();
    // It blocks opening the FIFO: after its start is on disk, before it publishes.
    const child = spawnCli({ args: ["profile", "set-config", fifo], stateDir: s.root }, "ignore");
    const deadline = Date.now() + 20_000;
    let open: Record<string, unknown> | undefined;
    while (open === undefined && Date.now() < deadline) {
      open = s.builtinRuns().find((r) => r.outcome === undefined);
      if (open === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(open, "the start record of profile set-config").toMatchObject({
      command: "builtin:profile set-config",
    });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    // The next host to start on the state directory finishes what the lost one left.
    expect(s.rukh(["nap"]).status).toBe(0);
    expect(s.builtinRuns().find((r) => r.invocationId === open!.invocationId)).toMatchObject({
      outcome: "execution_failed",
      reason: "host_lost",
    });
    expect(s.history()).toEqual(before);
  });
});

// The journal directory on a full tmpfs, the state directory elsewhere: the
// change itself could be made, but not recorded, so it is not made.
const mountPoint = mkdtempSync(join(tmpdir(), "rukh-builtin-full-"));
const mounted =
  process.getuid?.() === 0 &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mountPoint]).status === 0;
if (!mounted)
  console.warn(
    `built-in full-journal test skipped: ${process.getuid?.() === 0 ? "mount -t tmpfs was refused" : "mounting a tmpfs needs root"}`,
  );
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

it.skipIf(!mounted)(
  "a change the journal cannot record is not made: exit 5, journal_failed, the profile as it was",
  async () => {
    const s = await state("rukh-builtin-journal-full-");
    const journal = join(mountPoint, "journal");
    mkdirSync(journal, { mode: 0o700 });
    const env = { RUKH_JOURNAL_DIR: journal };
    // A first call makes what the journal keeps; then the disk fills.
    expect(s.rukh(["preset", "allow", "default", "fx.sleep/*"], env).status).toBe(0);
    const before = s.history();
    const preset = () => readFileSync(join(s.root, "active"), "utf8");
    const active = preset();
    const filler = fillFileSystem(mountPoint);
    expect(statfsSync(mountPoint).bavail).toBeLessThan(2);
    for (const args of [
      ["preset", "deny", "default", "fx.sleep/*"],
      ["expose", "add", "fx.sleep"],
    ]) {
      const r = s.rukh(args, env);
      expect(r.status, r.stderr).toBe(5);
      expect(r.stderr).toMatch(/journal cannot be written \(is the disk full\?\); nothing was run/);
      expect(r.stderr).toContain("(execution_failed/journal_failed)");
      const j = JSON.parse(s.rukh(["--json", ...args], env).stdout);
      expect(j.outcome).toMatchObject({ outcome: "execution_failed", reason: "journal_failed" });
    }
    expect(s.history()).toEqual(before);
    expect(preset()).toBe(active);
    // What frees space is not journaled, so it still runs on the full disk.
    const gc = s.rukh(["profile", "gc"], env);
    expect(gc.status, gc.stderr).toBe(0);
    rmSync(filler);
    expect(existsSync(filler)).toBe(false);
    expect(s.rukh(["preset", "deny", "default", "fx.sleep/*"], env).status).toBe(0);
    expect(s.builtinRuns(env).map((r) => `${r.command} ${r.outcome}`)).toEqual([
      "builtin:preset allow succeeded",
      "builtin:preset deny succeeded",
    ]);
  },
);
