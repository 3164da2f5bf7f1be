import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  openSync,
  rmSync,
  statfsSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJournal } from "../src/index.js";
import { call, makeState, openCore } from "./_helpers.js";

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

/** Leaves about `bytes` free on the file system, in one filler file. */
function leaveFree(bytes: number): void {
  const { bavail, bsize } = statfsSync(mountPoint);
  writeFileSync(join(mountPoint, "filler"), Buffer.alloc(Math.max(0, bavail * bsize - bytes)));
}

/** Fills the file system with one file until it is full; returns its path. */
function fill(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(4096, 0x78);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    expect((e as { code?: string }).code).toBe("ENOSPC");
  } finally {
    closeSync(fd);
  }
  return path;
}

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

  it("returns an outcome whose final could not be written, and writes that final once space returns", async () => {
    const core = await openCore(made.state);
    try {
      // tmpfs fills by pages: a final that still fits the journal's last page is written.
      // Calls go on until one's final finds no room.
      let owed: string | undefined;
      let filler = "";
      for (let i = 0; i < 40 && owed === undefined; i++) {
        const slow = core.invoke(call("fx.main/slow", { wait_ms: 400 }));
        await new Promise((r) => setTimeout(r, 150));
        filler = fill(mountPoint);
        const o = await slow;
        expect(o).toMatchObject({ outcome: "succeeded" });
        const mine = (await readJournal(made.root)).records.filter(
          (r) => r.invocationId === o.invocationId,
        );
        if (mine.some((r) => r.type === "final")) rmSync(filler);
        else owed = o.invocationId;
      }
      expect(owed).toBeDefined();
      rmSync(filler);
      const next = await core.invoke(call("fx.main/hello", { name: "c" }));
      expect(next).toMatchObject({ outcome: "succeeded" });
      const records = (await readJournal(made.root)).records.filter((r) => r.invocationId === owed);
      expect(records.map((r) => r.type)).toEqual(["start", "process", "final"]);
    } finally {
      await core.close();
    }
  });
});
