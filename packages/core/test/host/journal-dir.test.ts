import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { StateDirectory } from "@rukh/profile";
import { mountReadOnly } from "@rukh/testkit";
import { describe, expect, it } from "vitest";
import { CoreError, readJournal } from "../../src/index.js";
import { call, cleanup, makeState, openCore, ownerConfig } from "../_helpers.js";

// The owner's journal directory (`journal.dir`, or a host's own override):
// where a host's journal, diagnostics log and probe cache go, what its locks
// are keyed on, and what lets it serve a read-only state directory.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A state whose owner configuration names `dir(work)` as its journal directory. */
async function withJournalDir(dir: (work: string) => string) {
  const made = await makeState();
  const journalDir = dir(made.work);
  await made.state.setConfig(JSON.stringify({ ...ownerConfig(), journal: { dir: journalDir } }));
  return { ...made, journalDir };
}

describe("a host with a journal directory", () => {
  it("journals, logs and keeps its probe cache there, made with mode 0700, and writes none of them into the state directory", async () => {
    const { root, work, journalDir } = await withJournalDir((w) => join(w, "replica-journal"));
    try {
      const core = await openCore(new StateDirectory(root));
      const outcome = await core.invoke(call("fx.main/hello", { name: "Ro" }));
      await core.close();
      expect(outcome.outcome).toBe("succeeded");
      expect(statSync(journalDir).mode & 0o777).toBe(0o700);
      expect(outcome.diagnostics.logFile).toBe(join(journalDir, "logs", "diagnostics.log"));
      expect(readFileSync(outcome.diagnostics.logFile!, "utf8")).toContain("greeting Ro");
      const { records } = await readJournal(journalDir);
      expect(
        records.filter((r) => r.invocationId === outcome.invocationId).map((r) => r.type),
      ).toEqual(["start", "process", "final"]);
      expect(existsSync(join(journalDir, "cache", "confinement.json"))).toBe(true);
      for (const name of ["journal", "logs", "cache/confinement.json"])
        expect(existsSync(join(root, name)), name).toBe(false);
    } finally {
      cleanup(work);
    }
  });

  it("leaves the history from before it was set in the state directory", async () => {
    const { root, work, state } = await makeState();
    try {
      const before = await openCore(state);
      const old = await before.invoke(call("fx.main/hello", { name: "old" }));
      await before.close();
      const dir = join(work, "later");
      await state.setConfig(JSON.stringify({ ...ownerConfig(), journal: { dir } }));
      const after = await openCore(new StateDirectory(root));
      const next = await after.invoke(call("fx.main/hello", { name: "new" }));
      await after.close();
      const ids = async (at: string) =>
        new Set((await readJournal(at)).records.map((r) => r.invocationId));
      expect([...(await ids(root))]).toEqual([old.invocationId]);
      expect([...(await ids(dir))]).toEqual([next.invocationId]);
    } finally {
      cleanup(work);
    }
  });

  it("is refused, naming the path and the fix, when another user could change it", async () => {
    const { root, work, journalDir } = await withJournalDir((w) => join(w, "open-journal"));
    mkdirSync(journalDir);
    chmodSync(journalDir, 0o777);
    try {
      const e = await openCore(new StateDirectory(root)).catch((x: unknown) => x);
      expect((e as CoreError).code).toBe("state_unavailable");
      expect((e as CoreError).message).toBe(
        `the journal directory ${journalDir} is not safe to use: another user could change what it runs or records\n${journalDir} is writable by group or others (mode 0777)\n  fix: $ chmod go-w '${journalDir}'`,
      );
    } finally {
      cleanup(work);
    }
  });

  it("takes the one a process is given over the owner configuration's", async () => {
    const { root, work, journalDir } = await withJournalDir((w) => join(w, "configured"));
    const own = join(work, "own");
    try {
      const core = await openCore(new StateDirectory(root, { journalDir: own }));
      const outcome = await core.invoke(call("fx.main/hello", { name: "x" }));
      await core.close();
      expect((await readJournal(own)).records.map((r) => r.invocationId)).toContain(
        outcome.invocationId,
      );
      expect(existsSync(journalDir)).toBe(false);
    } finally {
      cleanup(work);
    }
  });

  it("is seen alive by a host of another copy of the state directory that shares it, and its lost call is finalized by one", async () => {
    const { root, work, journalDir } = await withJournalDir((w) => join(w, "shared-journal"));
    const copy = join(work, "copy");
    cpSync(root, copy, { recursive: true });
    const marker = join(work, "marker.txt");
    // Host A in a process of its own: hosts of one process never take each other for lost.
    const a = spawn(
      process.execPath,
      [new URL("../fixtures/host.mjs", import.meta.url).pathname, root, marker],
      { stdio: "ignore" },
    );
    const exited = new Promise((r) => a.once("exit", r));
    try {
      for (let i = 0; i < 500 && !existsSync(marker); i++) await sleep(20);
      expect(existsSync(marker)).toBe(true);
      // Host B on the copy: its liveness locks are keyed on the shared journal directory too.
      const b = await openCore(new StateDirectory(copy));
      expect(b.recovered).toEqual([]);
      await b.close();
      a.kill("SIGKILL");
      await exited;
      const c = await openCore(new StateDirectory(copy));
      expect(c.recovered).toHaveLength(1);
      await c.close();
      const { records } = await readJournal(journalDir);
      expect(records.find((r) => r.type === "final")).toMatchObject({
        outcome: "execution_failed",
        reason: "host_lost",
      });
    } finally {
      a.kill("SIGKILL");
      cleanup(work);
    }
  });
});

describe("hosts of copies of a state directory that share a journal directory", () => {
  it("share its concurrency slots: a one-slot preset busy on one copy refuses a call on the other", async () => {
    const { root, work, journalDir } = await withJournalDir((w) => join(w, "shared-slots"));
    const copy = join(work, "copy");
    cpSync(root, copy, { recursive: true });
    try {
      const a = await openCore(new StateDirectory(root), "single");
      const b = await openCore(new StateDirectory(copy), "single");
      const running = a.invoke(call("fx.main/slow", { wait_ms: 3_000 }));
      // Its process is journaled once it runs, holding the preset's one slot.
      for (let i = 0; i < 500; i++) {
        if ((await readJournal(journalDir)).records.some((r) => r.type === "process")) break;
        await sleep(20);
      }
      const refused = await b.invoke(call("fx.main/hello", { name: "b" }));
      expect(refused).toMatchObject({ outcome: "rejected", reason: "concurrency_limit" });
      expect(await running).toMatchObject({ outcome: "succeeded" });
      await Promise.all([a.close(), b.close()]);
    } finally {
      cleanup(work);
    }
  });
});

describe("a host on a read-only state directory", () => {
  it("refuses without a journal directory, naming /journal/dir; with one it serves, and nothing is written into the state directory", async (t) => {
    const { root, work } = await makeState();
    const at = join(work, "ro");
    const mount = mountReadOnly(root, at);
    if (typeof mount === "string") {
      console.log(`skipped: ${mount}`);
      t.skip();
      return;
    }
    try {
      const refused = await openCore(new StateDirectory(at)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CoreError);
      expect((refused as CoreError).code).toBe("state_unavailable");
      expect((refused as CoreError).message).toContain(
        `the state directory ${at} is read-only (on a read-only file system)`,
      );
      expect((refused as CoreError).message).toContain("/journal/dir");
      const dir = join(work, "journal-dir");
      const core = await openCore(new StateDirectory(at, { journalDir: dir }));
      const outcome = await core.invoke(call("fx.main/hello", { name: "ro" }));
      await core.close();
      expect(outcome.outcome).toBe("succeeded");
      expect((await readJournal(dir)).records.length).toBeGreaterThan(0);
      expect(existsSync(join(root, "journal"))).toBe(false);
      expect(readFileSync(join(root, "active"), "utf8")).toBe(
        readFileSync(join(at, "active"), "utf8"),
      );
    } finally {
      mount.release();
      cleanup(work);
    }
  });
});
