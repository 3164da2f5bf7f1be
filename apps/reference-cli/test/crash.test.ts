import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson, type JsonValue } from "@rukh/json";
import { StateDirectory } from "@rukh/profile";
import { machine, managed, removeDir, writeFixturePackage } from "@rukh/testkit";
import { runCli, startCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleeperState } from "./_sleeper.js";

// kill -9 before every state-changing file operation of an admin command
// (a preload counts them and kills the process just before the Nth): the
// state is then the old one or the new one, never anything between, and
// running the command again finishes the job.
const killAt = fileURLToPath(new URL("./fixtures/kill-at.mjs", import.meta.url));
let work: string;
let base: string;
let v2: string;
let other: string;

const program = (id: string) =>
  `import { runCommandProcess, textResult } from "@rukh/ipc";\nawait runCommandProcess({ handlers: { "${id}": () => textResult("ok") } });\n`;

async function pkg(id: string, version: string): Promise<string> {
  return writeFixturePackage({
    parent: work,
    descriptor: {
      format: "rukh.extension/2",
      id,
      version,
      publisher: "acme",
      commands: [
        {
          id: "nap",
          path: [id === "fx.sleep" ? "nap" : "other"],
          summary: "Answer",
          inputs: [],
          execute: managed({ kind: "text" }, "bin/nap.mjs"),
          machine: machine(),
        },
      ],
    },
    programs: { "bin/nap.mjs": program(`${id}/nap`) },
  });
}

beforeAll(async () => {
  ({ work, root: base } = await sleeperState({
    prefix: "rukh-cli-crash-",
    defaultMs: 1,
    maxConcurrency: 2,
  }));
  v2 = await pkg("fx.sleep", "2.0.0");
  other = await pkg("fx.other", "1.0.0");
});
afterAll(() => removeDir(work));

function rukh(root: string, args: readonly string[], faults: Record<string, string> = {}) {
  return runCli({ args, stateDir: root, env: { NODE_OPTIONS: `--import=${killAt}`, ...faults } });
}

/** The same, not waited for: kill steps run side by side, each on its own copy. */
function started(root: string, args: readonly string[], faults: Record<string, string> = {}) {
  return startCli({ args, stateDir: root, env: { NODE_OPTIONS: `--import=${killAt}`, ...faults } });
}

/** Runs `step(1..count)`, `width` at a time. */
async function inTurn(count: number, width: number, step: (n: number) => Promise<void>) {
  let next = 1;
  const lane = async () => {
    while (next <= count) await step(next++);
  };
  await Promise.all(Array.from({ length: width }, lane));
}

/** What a publication decides: the owner configuration and the installed extensions. */
async function contents(root: string): Promise<string> {
  const state = new StateDirectory(root);
  const id = await state.activeRevisionId();
  if (id === null) return "none";
  const r = await state.readRevision(id);
  return canonicalJson({ config: r.config, extensions: r.extensions } as unknown as JsonValue);
}

const OPERATIONS: [string, () => string[]][] = [
  ["install a new extension", () => ["ext", "install", other]],
  ["upgrade an extension", () => ["ext", "install", v2]],
  ["remove an extension", () => ["ext", "remove", "fx.sleep"]],
  ["expose a command", () => ["expose", "add", "fx.sleep/nap"]],
];

describe("kill -9 at every state-changing file operation", () => {
  it.each(OPERATIONS)(
    "%s: old or new state, and a second run finishes it",
    async (_name, args) => {
      const clean = join(work, `clean-${args().join("-").replaceAll("/", "_")}`);
      cpSync(base, clean, { recursive: true });
      const countFile = join(work, "count");
      const done = rukh(clean, args(), { RUKH_TEST_COUNT_FILE: countFile });
      expect(done.status, done.stderr).toBe(0);
      const steps = Number(readFileSync(countFile, "utf8"));
      const before = await contents(base);
      const after = await contents(clean);
      expect(after).not.toBe(before);
      expect(steps).toBeGreaterThan(3);
      const seen = { old: 0, new: 0 };
      // Two steps at a time (each its own copy of the state): the file is the suite's longest.
      await inTurn(steps, 2, async (n) => {
        const root = join(work, `crash-${n}`);
        removeDir(root);
        cpSync(base, root, { recursive: true });
        const killed = await started(root, args(), { RUKH_TEST_KILL_AT: String(n) });
        expect(killed.signal, `step ${n} of ${steps}`).toBe("SIGKILL");
        const state = await contents(root);
        expect([before, after], `step ${n} of ${steps}`).toContain(state);
        seen[state === before ? "old" : "new"]++;
        // Whatever it left is readable and verifies.
        await new StateDirectory(root).projection();
        const again = await started(root, args());
        // Removing what is already gone says so; everything else just completes.
        if (state === after && args()[1] === "remove")
          expect(again.stderr).toContain('extension "fx.sleep" is not installed');
        else expect(again.status, `rerun after step ${n}: ${again.stderr}`).toBe(0);
        expect(await contents(root)).toBe(after);
        const doctor = await started(root, ["doctor", "--repair"]);
        expect(doctor.status, `doctor after step ${n}: ${doctor.stdout}`).toBe(0);
        removeDir(root);
      });
      // Both sides were reached: the kills fell before and after the commit.
      expect(seen.old).toBeGreaterThan(0);
      expect(seen.new).toBeGreaterThan(0);
      console.log(
        `${args().slice(0, 2).join(" ")}: ${steps} steps, ${seen.old} old, ${seen.new} new`,
      );
    },
    600_000,
  );
});

// A full disk during publication, for real: the state directory on a small tmpfs.
const mountPoint = join(tmpdir(), `rukh-publish-full-${process.pid}`);
mkdirSync(mountPoint, { recursive: true });
const mounted =
  process.getuid?.() === 0 &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint]).status === 0;
if (!mounted)
  console.warn(
    `publication disk-full test skipped: ${process.getuid?.() === 0 ? "mount -t tmpfs was refused" : "mounting a tmpfs needs root"}`,
  );
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint]);
  removeDir(mountPoint);
});

it.skipIf(!mounted)(
  "a publication that meets a full disk changes nothing, says why, and succeeds once there is space",
  async () => {
    const root = join(mountPoint, "home");
    cpSync(base, root, { recursive: true });
    // The journal elsewhere: the publication itself meets the full disk (a change the
    // journal cannot record is refused before it begins: runs/builtin-journal.test.ts).
    const journal = mkdtempSync(join(tmpdir(), "rukh-publish-full-journal-"));
    const env = { RUKH_JOURNAL_DIR: journal };
    const before = await contents(root);
    const filler = join(mountPoint, "filler");
    const { bavail, bsize } = statfsSync(mountPoint);
    // Leave less room than the package and its revision need.
    writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - 2_048)));
    for (const args of [
      ["ext", "install", other],
      ["expose", "add", "fx.sleep/nap"],
    ]) {
      const full = rukh(root, args, env);
      expect(full.status, full.stderr).not.toBe(0);
      expect(full.stderr).toMatch(/ENOSPC|no space/i);
      expect(full.stderr).not.toMatch(/\n\s+at /);
      expect(await contents(root)).toBe(before);
      await new StateDirectory(root).projection();
    }
    rmSync(filler);
    const installed = rukh(root, ["ext", "install", other], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(JSON.parse(await contents(root)).extensions.map((e: { id: string }) => e.id)).toContain(
      "fx.other",
    );
    const doctor = rukh(root, ["doctor", "--repair"], env);
    expect(doctor.status, doctor.stdout).toBe(0);
    removeDir(journal);
  },
);
