import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fillFileSystem, removeDir, tempDir } from "@rukh/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRun, readJournal } from "../../src/index.js";
import { journalTuning, LIVE_SEGMENT_BYTES } from "../../src/journal/_journal-writer.js";
import { call, makeState, openCore } from "../_helpers.js";

// A full disk, for real: the state directory lives on a small tmpfs that the
// test fills. The process must not die, every call gets one outcome, and
// once space returns calls work again with no repair.
const mountPoint = tempDir("rukh-diskfull-");
const mounted =
  process.getuid?.() === 0 &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]).status === 0;
if (!mounted)
  console.warn(
    `disk-full suite skipped: ${process.getuid?.() === 0 ? "mount -t tmpfs was refused" : "mounting a tmpfs needs root"}`,
  );
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint]);
  removeDir(mountPoint);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Leaves about `bytes` free on the file system, in one filler file. */
function leaveFree(bytes: number): void {
  const { bavail, bsize } = statfsSync(mountPoint);
  writeFileSync(join(mountPoint, "filler"), Buffer.alloc(Math.max(0, bavail * bsize - bytes)));
}

const fill = fillFileSystem;

describe.skipIf(!mounted)("a full disk under the state directory", () => {
  let made: Awaited<ReturnType<typeof makeState>>;
  beforeAll(async () => {
    mkdirSync(join(mountPoint, "w"));
    made = await makeState({ at: join(mountPoint, "w") });
  });

  it("loses diagnostics softly, refuses to start what it cannot journal, and needs no repair after", async () => {
    const core = await openCore(made.state);
    try {
      // Full before the call: the start cannot be journaled, so nothing runs.
      const filler = fill(mountPoint);
      const refused = await core.invoke(call("fx.main/hello", { name: "a" }));
      expect(refused).toMatchObject({ outcome: "execution_failed", reason: "journal_failed" });
      // Room for journal records only: the flood's diagnostics are lost, the call is not.
      rmSync(filler);
      leaveFree(8_192);
      const flood = await core.invoke(call("fx.main/flood"));
      expect(flood).toMatchObject({ outcome: "succeeded", commandResult: { text: "flooded" } });
      expect(flood.diagnostics.logWriteFailures).toBeGreaterThan(0);
      // Space returns: the next call works and is logged, and the journal reads whole.
      rmSync(join(mountPoint, "filler"));
      const after = await core.invoke(call("fx.main/hello", { name: "b" }));
      expect(after).toMatchObject({ outcome: "succeeded", commandResult: { text: "hello b" } });
      expect(after.diagnostics.logWriteFailures).toBeUndefined();
      const { records } = await readJournal(made.root);
      const finals = records.filter((r) => r.type === "final");
      expect(new Set(finals.map((r) => r.invocationId)).size).toBe(finals.length);
      expect(finals.map((r) => r.invocationId)).toEqual(
        expect.arrayContaining([flood.invocationId, after.invocationId]),
      );
      expect(records.some((r) => r.invocationId === refused.invocationId)).toBe(false);
    } finally {
      await core.close();
    }
  });

  it.each(["SIGKILL", "SIGTERM"] as const)(
    "puts a final on disk before its outcome is delivered though the disk filled while the call ran (%s after)",
    async (signal) => {
      const slowBefore = (await readJournal(made.root)).records.filter(
        (r) => r.type === "start" && r.command === "fx.main/slow",
      ).length;
      const host = spawn(
        process.execPath,
        [new URL("../fixtures/full-disk-host.mjs", import.meta.url).pathname, made.root, "1200"],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      const exited = new Promise((r) => host.once("exit", r));
      let out = "";
      host.stdout.on("data", (d) => {
        out += d;
      });
      let filler: string | undefined;
      try {
        // Once the call has started, the disk fills up to its last byte.
        for (let i = 0; i < 400 && filler === undefined; i++) {
          const records = (await readJournal(made.root)).records;
          const slow = records.filter((r) => r.type === "start" && r.command === "fx.main/slow");
          // The second slow call (the first measures record sizes) has its process record.
          const started =
            slow.length === slowBefore + 2 &&
            records.some((r) => r.type === "process" && r.invocationId === slow[1]!.invocationId);
          if (started) filler = fill(mountPoint);
          else await sleep(20);
        }
        expect(filler).toBeDefined();
        for (let i = 0; i < 500 && !out.includes("\n"); i++) await sleep(20);
        const delivered = JSON.parse(out) as { invocationId: string; outcome: string };
        expect(delivered.outcome).toBe("succeeded");
        // The client has its outcome; the host dies while the disk is still full.
        host.kill(signal);
        await exited;
        const finals = async () =>
          (await readJournal(made.root)).records
            .filter((r) => r.type === "final" && r.invocationId === delivered.invocationId)
            .map((r) => (r.type === "final" ? `${r.outcome}/${r.reason}` : ""));
        expect(await finals()).toEqual(["succeeded/completed"]);
        rmSync(filler!);
        filler = undefined;
        // The next start judges the lost host's calls: this one has its final and keeps it.
        const core = await openCore(made.state);
        expect(core.recovered).toEqual([]);
        await core.close();
        expect(await finals()).toEqual(["succeeded/completed"]);
      } finally {
        host.kill("SIGKILL");
        if (filler !== undefined) rmSync(filler);
      }
    },
  );

  it("writes a final it could not write before delivery as soon as space returns, marked deliveredUnjournaled", async () => {
    const core = await openCore(made.state);
    let filler: string | undefined;
    try {
      filler = fill(mountPoint);
      // Refusals have no start to set room aside: they spend the spare reserve, then are owed.
      const refused: string[] = [];
      for (let i = 0; i < 600; i++)
        refused.push((await core.invoke(call("fx.main/nope"))).invocationId);
      const onDisk = async () =>
        new Set(
          (await readJournal(made.root)).records
            .filter((r) => r.type === "final")
            .map((r) => r.invocationId),
        );
      const before = await onDisk();
      const late = refused.filter((id) => !before.has(id));
      expect(late.length).toBeGreaterThan(0);
      // Space returns; no call is made, and the owed finals land within a second.
      rmSync(filler);
      filler = undefined;
      let after = await onDisk();
      for (let i = 0; i < 50 && late.some((id) => !after.has(id)); i++) {
        await sleep(40);
        after = await onDisk();
      }
      expect(late.filter((id) => !after.has(id))).toEqual([]);
      const records = (await readJournal(made.root)).records.filter(
        (r) => r.type === "final" && late.includes(r.invocationId),
      );
      expect(records.every((r) => r.type === "final" && r.deliveredUnjournaled === true)).toBe(
        true,
      );
      expect(records).toHaveLength(late.length);
      expect(await findRun(made.root, late[0]!)).toMatchObject({
        outcome: "rejected",
        deliveredUnjournaled: true,
      });
    } finally {
      if (filler !== undefined) rmSync(filler);
      await core.close();
    }
  });

  it("keeps one final per call when a full part cannot be archived, and leaves no full part in live/ at a clean exit", async () => {
    journalTuning.liveSegmentBytes = 32_768;
    const core = await openCore(made.state);
    const live = join(made.root, "journal", "live");
    const parts = () => readdirSync(live).filter((n) => n.endsWith(".jsonl"));
    try {
      const long = core.invoke(call("fx.main/slow", { wait_ms: 3000 }));
      await sleep(300);
      // Room for the live part to fill and roll over, not for the full part to be archived.
      leaveFree(49_152);
      for (let i = 0; i < 600 && parts().length < 2; i++) await core.invoke(call("fx.main/nope"));
      expect(parts().length).toBeGreaterThanOrEqual(2);
      await sleep(200);
      expect(parts().length).toBeGreaterThanOrEqual(2);
      // Space returns; the long call ends; the host closes cleanly.
      rmSync(join(mountPoint, "filler"));
      const o = await long;
      expect(o).toMatchObject({ outcome: "succeeded" });
      await core.close();
      expect(parts()).toEqual([]);
      const finals = async () =>
        (await readJournal(made.root)).records.filter(
          (r) => r.type === "final" && r.invocationId === o.invocationId,
        );
      expect(await finals()).toHaveLength(1);
      const next = await openCore(made.state);
      expect(next.recovered).toEqual([]);
      await next.close();
      expect(await finals()).toHaveLength(1);
    } finally {
      journalTuning.liveSegmentBytes = LIVE_SEGMENT_BYTES;
      rmSync(join(mountPoint, "filler"), { force: true });
      await core.close();
    }
  });
});
