// The journal's shared flush: records of concurrent calls are put on disk by
// one fdatasync, and none is reported on disk before a flush begun after its
// write has ended. Flushes are held back by hand to see each step.
import {
  fdatasync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import { join } from "node:path";
import { describeConfinement } from "@rukh/core";
import { canonicalJson, type JsonValue } from "@rukh/json";
import { stateLocks } from "@rukh/profile";
import { processesWith, removeDir, tempDir } from "@rukh/testkit";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { HostJournal } from "../../src/journal/_host-journal.js";
import { type JournalRecord, readJournal } from "../../src/journal/_journal.js";
import {
  type FlushFn,
  JournalWriter,
  journalTuning,
  LIVE_SEGMENT_BYTES,
} from "../../src/journal/_journal-writer.js";
import { call, finalRecord, makeState, openCore, startRecord } from "../_helpers.js";

const work = tempDir("rukh-grouped-");
// Only a launch in a pid namespace (which dies with its host) is kept ready.
const tree = (await describeConfinement()).hostTrustedTree;
afterAll(() => removeDir(work));

const record = finalRecord;
const line = (i: number) => `${canonicalJson(record(i) as unknown as JsonValue)}\n`;

/** A flush that waits until the test lets it end, with the error the test gives (or a real fdatasync). */
function heldFlush() {
  const held: { fd: number; end: (err: Error | null) => void }[] = [];
  const flush: FlushFn = (fd, done) => held.push({ fd, end: done });
  return {
    flush,
    held,
    /** Ends the oldest held flush: by a real fdatasync, or with `err`. */
    async release(err: Error | null = null) {
      const h = held.shift()!;
      if (err !== null) h.end(err);
      else
        await new Promise<void>((r) =>
          fdatasync(h.fd, (e) => {
            h.end(e);
            r();
          }),
        );
    },
  };
}

/** Whether `p` has settled, after the turns already queued have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe("a grouped append", () => {
  it("is written at once and resolves only after a flush begun after it: one flush for the appends made meanwhile", async () => {
    const f = heldFlush();
    const journal = JournalWriter.create(join(work, "shared"), "h", undefined, 0, f.flush);
    const first = journal.appendGrouped(record(0));
    expect(f.held).toHaveLength(1);
    // Three more while the first flush runs: written, waiting, no second flush yet.
    const more = [1, 2, 3].map((i) => journal.appendGrouped(record(i)));
    expect(readFileSync(journal.file, "utf8")).toBe([0, 1, 2, 3].map(line).join(""));
    expect(f.held).toHaveLength(1);
    expect(await settled(first)).toBe(false);
    await f.release();
    expect(await settled(first)).toBe(true);
    // The first flush began before they were written: it proves nothing of them.
    for (const p of more) expect(await settled(p)).toBe(false);
    expect(f.held).toHaveLength(1);
    await f.release();
    for (const p of more) expect(await settled(p)).toBe(true);
    expect(f.held).toHaveLength(0);
    journal.close();
  });

  it("refuses every append a failed flush covered and cuts their bytes back off, keeping what was on disk", async () => {
    const f = heldFlush();
    const journal = JournalWriter.create(join(work, "failed"), "h", undefined, 0, f.flush);
    const kept = journal.appendGrouped(record(0));
    await f.release();
    await kept;
    const lost = journal.appendGrouped(record(1));
    const alsoLost = journal.appendGrouped(record(2));
    const failure = Promise.allSettled([lost, alsoLost]);
    await f.release(Object.assign(new Error("I/O error"), { code: "EIO" }));
    const [a, b] = await failure;
    for (const r of [a, b]) {
      expect(r.status).toBe("rejected");
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "journal_failed" });
    }
    expect(readFileSync(journal.file, "utf8")).toBe(line(0));
    expect(journal.size).toBe(line(0).length);
    // The next append follows the last good record, whole.
    const next = journal.appendGrouped(record(3));
    await f.release();
    await next;
    expect(readFileSync(journal.file, "utf8")).toBe(line(0) + line(3));
    journal.close();
  });

  it("settles what waits when closed, and closes the descriptor only once a running flush has ended", async () => {
    const f = heldFlush();
    const journal = JournalWriter.create(join(work, "close"), "h", undefined, 0, f.flush);
    const waiting = journal.appendGrouped(record(0));
    journal.close();
    // Flushed synchronously by close: resolved without the held flush.
    expect(await settled(waiting)).toBe(true);
    await waiting;
    // The held flush still has the descriptor; ending it must find it open.
    let error: Error | null = null;
    await new Promise<void>((r) =>
      fdatasync(f.held[0]!.fd, (e) => {
        error = e;
        f.held.shift()!.end(e);
        r();
      }),
    );
    expect(error).toBeNull();
    expect(() => journal.appendGrouped(record(1))).toThrow(/is closed/);
  });
});

describe("a flush that fails after another reported its records on disk", () => {
  it("breaks the writer: it refuses every later append, for the records told written may be lost", async () => {
    const f = heldFlush();
    const journal = JournalWriter.create(join(work, "broken"), "h", undefined, 0, f.flush);
    const waiting = journal.appendGrouped(record(0));
    // A synchronous append (an owed final) flushes on its own while the background flush runs,
    // and reports both records on disk.
    journal.append(record(1));
    expect(await settled(waiting)).toBe(true);
    expect(journal.broken).toBe(false);
    // The disk's error went to the background flush instead.
    await f.release(Object.assign(new Error("I/O error"), { code: "EIO" }));
    expect(journal.broken).toBe(true);
    expect(() => journal.appendGrouped(record(2))).toThrow(/an earlier flush .* failed/);
    expect(() => journal.append(record(2))).toThrow(/an earlier flush .* failed/);
    journal.close();
  });
});

describe("a host's journal parts", () => {
  afterEach(() => {
    journalTuning.flush = fdatasync;
    journalTuning.liveSegmentBytes = LIVE_SEGMENT_BYTES;
  });
  const host = (root: string) =>
    new HostJournal({
      stateRoot: root,
      locks: stateLocks(realpathSync(root)),
      host: "h",
      logger: { error() {}, warn() {}, info() {} } as never,
      retention: async () => ({ maxAgeMs: 86_400_000, maxBytes: 1e9 }),
    });
  const start = (i: number): JournalRecord => ({
    ...(startRecord(record(i).invocationId, "h") as unknown as JournalRecord),
  });

  it("roll over only once every record of the full part is on disk, and then carry the calls still running", async () => {
    const root = join(work, "roll");
    mkdirSync(root, { recursive: true });
    const f = heldFlush();
    journalTuning.flush = f.flush;
    journalTuning.liveSegmentBytes = 600;
    const journal = host(root);
    const live = join(root, "journal", "live");
    const parts = () =>
      readdirSync(live)
        .filter((n) => n.endsWith(".jsonl"))
        .sort();
    const first = journal.append(start(0));
    // Past the size while the first flush is held: still the first part.
    const more = [1, 2, 3].map((i) => journal.append(start(i)));
    expect(parts()).toEqual(["h.000000.jsonl"]);
    await f.release();
    await first;
    await f.release();
    await Promise.all(more);
    // Every record is on disk: the next record starts the next part, which carries the four starts.
    const fifth = journal.append(start(4));
    expect(parts()).toEqual(["h.000000.jsonl", "h.000001.jsonl"]);
    await f.release();
    await fifth;
    const carried = readFileSync(join(live, "h.000001.jsonl"), "utf8").trim().split("\n");
    expect(carried).toHaveLength(5);
    await journal.close();
  });
});

describe("a host's journal", () => {
  afterEach(() => {
    journalTuning.flush = fdatasync;
  });

  it("spawns nothing before its start is flushed, delivers no outcome before its final is, and flushes the records of concurrent calls together", async () => {
    const { state, work: dir } = await makeState();
    try {
      let flushes = 0;
      let records = 0;
      // The records a flush that ended had covered, by type and call.
      const durable = new Set<string>();
      // Process records (written once a process was spawned) of calls whose start was not yet flushed.
      const spawnedEarly: string[] = [];
      journalTuning.flush = (fd, done) => {
        flushes++;
        const text = readFileSync(readlinkSync(`/proc/self/fd/${fd}`), "utf8");
        const lines = text.split("\n").filter((l) => l !== "");
        records = lines.length;
        const written = lines.map((l) => JSON.parse(l) as JournalRecord);
        for (const r of written)
          if (r.type === "process" && !durable.has(`start ${r.invocationId}`))
            spawnedEarly.push(r.invocationId);
        // A slow disk: each flush takes 20 ms, so records of other calls arrive meanwhile.
        setTimeout(
          () =>
            fdatasync(fd, (e) => {
              if (e === null) for (const r of written) durable.add(`${r.type} ${r.invocationId}`);
              done(e);
            }),
          20,
        );
      };
      const core = await openCore(state);
      const early: string[] = [];
      const outcomes = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          core.invoke(call("fx.main/hello", { name: `n${i}` })).then((o) => {
            if (!durable.has(`final ${o.invocationId}`)) early.push(o.invocationId);
            return o;
          }),
        ),
      );
      for (const o of outcomes) expect(o, o.message).toMatchObject({ outcome: "succeeded" });
      expect(early).toEqual([]);
      expect(spawnedEarly).toEqual([]);
      // Four calls wrote a start, a process record and a final each, in fewer flushes.
      expect(records).toBeGreaterThanOrEqual(12);
      expect(flushes).toBeLessThan(records);
      await core.close();
    } finally {
      removeDir(dir);
    }
  });

  it.skipIf(tree.mechanism !== "pid-namespace")(
    "starts the next ready processes only once a call's outcome is handed back, not while its final is flushed",
    async () => {
      const { state, work: dir, root } = await makeState();
      try {
        let slow = false;
        // A slow disk: a flush takes 400 ms, long enough for a process to be started meanwhile.
        journalTuning.flush = (fd, done) => setTimeout(() => fdatasync(fd, done), slow ? 400 : 0);
        const core = await openCore(state, "default", { readyProcesses: 4 });
        const ready = () => processesWith(`${root}/store/`, "node");
        await core.invoke(call("fx.main/hello", { name: "a" }));
        slow = true;
        // The second call of the same launch asks for ready processes.
        let atOutcome = -1;
        const o = await core.invoke(call("fx.main/hello", { name: "b" })).then((r) => {
          atOutcome = ready().length;
          return r;
        });
        expect(o).toMatchObject({ outcome: "succeeded" });
        expect(atOutcome).toBe(0);
        // Then they start.
        for (let i = 0; i < 250 && ready().length === 0; i++)
          await new Promise((r) => setTimeout(r, 20));
        expect(ready().length).toBeGreaterThan(0);
        await core.close();
      } finally {
        removeDir(dir);
      }
    },
  );

  it("runs nothing of a call whose start was still being flushed when the host closed: it ends cancelled", async () => {
    const { state, work: dir, root } = await makeState();
    try {
      let hold = false;
      const held: (() => void)[] = [];
      journalTuning.flush = (fd, done) => {
        if (hold) held.push(() => fdatasync(fd, done));
        else fdatasync(fd, done);
      };
      const core = await openCore(state);
      hold = true;
      const pending = core.invoke(call("fx.main/hello", { name: "late" }));
      for (let i = 0; i < 250 && held.length === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(held.length).toBeGreaterThan(0);
      const closing = core.close();
      hold = false;
      for (const run of held.splice(0)) run();
      const o = await pending;
      await closing;
      expect(o).toMatchObject({ outcome: "cancelled", reason: "owner_cancel" });
      const records = (await readJournal(root)).records.filter(
        (r) => r.invocationId === o.invocationId,
      );
      expect(records.map((r) => r.type)).toEqual(["start", "final"]);
    } finally {
      removeDir(dir);
    }
  });
});
