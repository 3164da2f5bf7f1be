import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { stateLocks } from "@rukh/profile";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { findRun, listRuns } from "../../src/history/_runs.js";
import { ARCHIVE_SEGMENT_BYTES, archiveSegment } from "../../src/journal/_archive.js";
import { readJournal } from "../../src/journal/_journal.js";
import { JournalWriter, journalTuning, type WriteFn } from "../../src/journal/_journal-writer.js";
import { call, finalRecord, makeState, openCore, startRecord } from "../_helpers.js";

const work = tempDir("rukh-journal-");
afterAll(() => removeDir(work));

const record = finalRecord;

it("leaves the file exactly as it was when an append fails after any number of bytes", async () => {
  const root = join(work, "torn");
  let failAfter = Number.POSITIVE_INFINITY;
  // Writes at most what is left before the fault, then fails as a full disk does.
  const faulty: WriteFn = (fd, buffer, offset) => {
    if (failAfter <= 0)
      throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    const n = Math.min(failAfter, buffer.length - offset);
    failAfter -= n;
    return writeSync(fd, buffer, offset, n);
  };
  const journal = JournalWriter.create(root, "h", faulty);
  journal.append(record(0));
  const file = journal.file;
  const good = readFileSync(file);
  const size = Buffer.byteLength(`${JSON.stringify(record(1))}\n`);
  for (let n = 0; n < size; n++) {
    failAfter = n;
    expect(() => journal.append(record(1))).toThrow(/cannot append/);
    expect(readFileSync(file)).toEqual(good);
  }
  failAfter = Number.POSITIVE_INFINITY;
  journal.append(record(2));
  journal.close();
  const { records, tornTailBytes } = await readJournal(root);
  expect(tornTailBytes).toBe(0);
  expect(records.map((r) => r.invocationId.slice(-1))).toEqual(["0", "2"]);
});

describe("segment parts", () => {
  it("rolls a long-lived host to a new part, carrying the calls still running, and archives the full one", async () => {
    const tuning = journalTuning.liveSegmentBytes;
    journalTuning.liveSegmentBytes = 2_000;
    const { state, root, work: dir } = await makeState();
    try {
      const core = await openCore(state);
      const slow = core.invoke(call("fx.main/slow", { wait_ms: 1_000 }));
      await new Promise((r) => setTimeout(r, 300));
      // Rejected calls (one final each) fill the part past its size.
      for (let i = 0; i < 20; i++) await core.invoke(call("fx.main/hello", {}));
      const o = await slow;
      expect(o).toMatchObject({ outcome: "succeeded" });
      // Full parts are archived in the background; wait for them.
      const liveDir = join(root, "journal", "live");
      const segments = () => readdirSync(liveDir).filter((n) => n.endsWith(".jsonl"));
      for (let i = 0; i < 100 && segments().length > 1; i++)
        await new Promise((r) => setTimeout(r, 20));
      const live = segments();
      expect(live).toHaveLength(1);
      expect(live[0]).not.toMatch(/\.000000\.jsonl$/);
      expect(readdirSync(join(root, "journal", "archive")).length).toBeGreaterThan(0);
      // Beside it, the host's reserve for the finals it may owe; gone at close.
      expect(readdirSync(liveDir).filter((n) => n.endsWith(".reserve"))).toHaveLength(1);
      await core.close();
      expect(readdirSync(liveDir)).toEqual([]);
      expect(await findRun(root, o.invocationId)).toMatchObject({
        outcome: "succeeded",
        reason: "completed",
      });
      const runs = await listRuns(root, { limit: 100 });
      expect(runs.filter((r) => r.invocationId === o.invocationId)).toHaveLength(1);
      expect(runs).toHaveLength(21);
    } finally {
      journalTuning.liveSegmentBytes = tuning;
      removeDir(dir);
    }
  });

  it("recovers a lost host's parts together: an open start carried into a newer part gets one final", async () => {
    const { state, root, work: dir } = await makeState();
    try {
      const start = (id: string) => startRecord(id, "gone");
      const final = (id: string) => ({
        at: "2026-12-01T00:00:01.000Z",
        host: "gone",
        invocationId: id,
        outcome: "succeeded",
        reason: "completed",
        type: "final",
      });
      const a = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
      const b = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
      const live = join(root, "journal", "live");
      mkdirSync(live, { recursive: true });
      const lines = (rs: object[]) => rs.map((r) => `${JSON.stringify(r)}\n`).join("");
      writeFileSync(join(live, "gone.000000.jsonl"), lines([start(a), start(b)]));
      writeFileSync(join(live, "gone.000001.jsonl"), lines([start(a), start(b), final(a)]));
      const core = await openCore(state);
      expect(core.recovered).toEqual([b]);
      await core.close();
      expect(readdirSync(live)).toEqual([]);
      const finals = (await readJournal(root)).records.filter(
        (r) => r.type === "final" && r.invocationId === b,
      );
      expect(finals).toHaveLength(1);
      expect(await findRun(root, b)).toMatchObject({
        outcome: "execution_failed",
        reason: "host_lost",
      });
    } finally {
      removeDir(dir);
    }
  });
});

it("prunes the oldest archive segments past the age and size budget when a new one begins, never the newest", async () => {
  const root = join(work, "prune");
  const archive = join(root, "journal", "archive");
  const live = join(root, "journal", "live");
  mkdirSync(archive, { recursive: true });
  mkdirSync(live, { recursive: true });
  const seg = (n: number) => join(archive, `${String(n).padStart(10, "0")}.jsonl`);
  const dated = (i: number, daysAgo: number) =>
    `${JSON.stringify({ ...record(i), at: new Date(Date.now() - daysAgo * 86_400_000).toISOString() })}\n`;
  // Age is read from the records, not the file: 1's records are 40 days older than the newest.
  writeFileSync(seg(1), dated(1, 40));
  writeFileSync(seg(2), dated(2, 1).repeat(10));
  writeFileSync(join(archive, "0000000002.index.json"), "an index, pruned with its segment\n");
  // A full newest segment: the next archive begins segment 4.
  writeFileSync(seg(3), dated(3, 0));
  truncateSync(seg(3), ARCHIVE_SEGMENT_BYTES);
  const lost = join(live, "h.000000.jsonl");
  writeFileSync(lost, dated(7, 0));
  let asked = 0;
  const retention = async () => {
    asked++;
    return { maxAgeMs: 30 * 86_400_000, maxBytes: ARCHIVE_SEGMENT_BYTES + 1_000 };
  };
  const o = { stateRoot: root, locks: stateLocks(realpathSync(root)), host: "me", retention };
  expect(await archiveSegment(lost, o)).toBe(true);
  // 1 is too old; 2 pushes the total past the budget; 3 and the new 4 stay.
  // The segment appended to gets its index beside it; the pruned ones leave none.
  expect(readdirSync(archive).sort()).toEqual([
    "0000000003.jsonl",
    "0000000004.index.json",
    "0000000004.jsonl",
  ]);
  expect(asked).toBe(1);
  // Appending to a segment with room asks nothing of the configuration.
  const next = join(live, "h.000001.jsonl");
  writeFileSync(next, `${JSON.stringify(record(8))}\n`);
  expect(await archiveSegment(next, o)).toBe(true);
  expect(asked).toBe(1);
  expect(readdirSync(live)).toEqual([]);
});

describe("retention on a clock that disagrees with the journal", () => {
  const DAY = 86_400_000;
  afterEach(() => vi.useRealTimers());
  // Segment 1 is `oldDays` old and segment 2 full, both by the journal's time; the
  // archiving host "me", its clock `clockDays` off, writes its records on that clock.
  it.each([
    ["60 days ahead", { oldDays: 2, clockDays: 60, host2: "h", kept: 3 }],
    ["60 days behind", { oldDays: 40, clockDays: -60, host2: "h", kept: 3 }],
    [
      "60 days ahead, vouched for by its own records only",
      { oldDays: 2, clockDays: 60, host2: "me", kept: 3 },
    ],
    ["right (the control: age still counts)", { oldDays: 40, clockDays: 0, host2: "h", kept: 2 }],
  ])("a clock %s", async (name, { oldDays, clockDays, host2, kept }) => {
    const root = join(work, `prune-clock-${name.replace(/\W+/g, "-")}`);
    const archive = join(root, "journal", "archive");
    const live = join(root, "journal", "live");
    mkdirSync(archive, { recursive: true });
    mkdirSync(live, { recursive: true });
    const seg = (n: number) => join(archive, `${String(n).padStart(10, "0")}.jsonl`);
    const real = Date.now();
    const line = (i: number, host: string, at: number) =>
      `${JSON.stringify({ ...record(i), host, at: new Date(at).toISOString() })}\n`;
    writeFileSync(seg(1), line(1, "h", real - oldDays * DAY));
    // The second segment's records were written by `host2`: "me" dates them on its own clock.
    writeFileSync(seg(2), line(2, host2, host2 === "me" ? real + clockDays * DAY : real));
    truncateSync(seg(2), ARCHIVE_SEGMENT_BYTES);
    const mine = join(live, "me.000000.jsonl");
    writeFileSync(mine, line(7, "me", real + clockDays * DAY));
    vi.useFakeTimers({ toFake: ["Date"], now: real + clockDays * DAY });
    const o = {
      stateRoot: root,
      locks: stateLocks(realpathSync(root)),
      host: "me",
      retention: async () => ({ maxAgeMs: 30 * DAY, maxBytes: 1 << 30 }),
    };
    expect(await archiveSegment(mine, o)).toBe(true);
    // Segments only: the one appended to also gets its index beside it.
    const segments = readdirSync(archive).filter((n) => n.endsWith(".jsonl"));
    expect(segments).toHaveLength(kept);
    expect(segments.at(-1)).toBe("0000000003.jsonl");
  });
});

describe("reading the journal while a host archives", () => {
  // An archiver appends a live segment to the archive, then removes it: a
  // reader between the two steps finds its records in both places, and one
  // that read the archive before the append and `live/` after the removal
  // would find them in neither.
  const setUp = (name: string, segments: number) => {
    const root = join(work, name);
    const live = join(root, "journal", "live");
    mkdirSync(live, { recursive: true });
    const files: string[] = [];
    for (let s = 0; s < segments; s++) {
      const file = join(live, `h${s}.000000.jsonl`);
      writeFileSync(
        file,
        `${JSON.stringify(record(2 * s))}\n${JSON.stringify(record(2 * s + 1))}\n`,
      );
      files.push(file);
    }
    const o = {
      stateRoot: root,
      locks: stateLocks(realpathSync(root)),
      host: "me",
      retention: async () => ({ maxAgeMs: 30 * 86_400_000, maxBytes: 1e9 }),
    };
    return { root, live, files, o };
  };

  it("reads a segment found both in the archive and in live/ once", async () => {
    const { root, live, files } = setUp("archiving-both", 1);
    // The moment between the archive's append and the live file's removal.
    const archive = join(root, "journal", "archive");
    mkdirSync(archive, { recursive: true });
    writeFileSync(join(archive, "0000000001.jsonl"), readFileSync(files[0]!));
    expect(readdirSync(live)).toHaveLength(1);
    const ids = (await readJournal(root)).records.map((r) => r.invocationId);
    expect(ids).toEqual([record(0).invocationId, record(1).invocationId]);
  });

  it("sees every record exactly once in every read while segments move to the archive", async () => {
    const { root, files, o } = setUp("archiving-race", 40);
    let moving = true;
    const mover = (async () => {
      for (const f of files) await archiveSegment(f, o);
      moving = false;
    })();
    let reads = 0;
    while (moving) {
      const { records } = await readJournal(root);
      expect(records).toHaveLength(2 * files.length);
      expect(new Set(records.map((r) => r.invocationId)).size).toBe(2 * files.length);
      reads++;
    }
    await mover;
    expect(reads).toBeGreaterThan(0);
    expect((await readJournal(root)).records).toHaveLength(2 * files.length);
  });

  it("lists every run exactly once while segments move to new archive segments", async () => {
    const { root, files, o } = setUp("archiving-listing", 30);
    const archive = join(root, "journal", "archive");
    mkdirSync(archive, { recursive: true });
    let moving = true;
    const mover = (async () => {
      for (const f of files) {
        // The newest archive segment is full: each move begins a new one, a name no earlier listing had.
        const names = readdirSync(archive)
          .filter((n) => n.endsWith(".jsonl"))
          .sort();
        const newest = join(archive, names.at(-1) ?? "0000000001.jsonl");
        if (names.length === 0) writeFileSync(newest, "");
        truncateSync(newest, ARCHIVE_SEGMENT_BYTES);
        await archiveSegment(f, o);
      }
      moving = false;
    })();
    let reads = 0;
    while (moving) {
      const runs = await listRuns(root, { limit: 500 });
      expect(runs).toHaveLength(2 * files.length);
      reads++;
    }
    await mover;
    expect(reads).toBeGreaterThan(0);
  });
});
