import { createHash } from "node:crypto";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { stateLocks } from "@rukh/profile";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRun, listRuns } from "../../src/history/_runs.js";
import { archiveSegment } from "../../src/journal/_archive.js";
import { filterOf, idHashes, listOf, mayHold } from "../../src/journal/_index-ids.js";
import { indexFile, JOURNAL_INDEX_FORMAT, loadIndex } from "../../src/journal/_journal-index.js";
import type { RunFilter } from "../../src/journal/_run-model.js";
import { startRecord } from "../_helpers.js";

const work = tempDir("rukh-journal-index-");
afterAll(() => removeDir(work));

const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
const time = (minute: number) => new Date(Date.UTC(2026, 0, 1) + minute * 60_000).toISOString();
const line = (r: object) => `${JSON.stringify(r)}\n`;

const start = (i: number, minute: number) =>
  line(
    startRecord(id(i), "h", {
      at: time(minute),
      command: `fx.c${i % 4}/run`,
      preset: i % 5 === 0 ? "agent" : "default",
      surface: i % 3 === 0 ? "mcp" : "cli",
    }),
  );
const final = (i: number, minute: number, outcome = "succeeded", reason = "completed") =>
  line({ at: time(minute), host: "h", invocationId: id(i), outcome, reason, type: "final" });
const processLine = (i: number) =>
  line({ host: "h", invocationId: id(i), pgid: 7, pid: 7, startTime: "1", type: "process" });
const rejected = (i: number, minute: number) =>
  line({
    at: time(minute),
    by: { actor: "a", preset: "default", subject: "s", taskAuthorityRef: "t" },
    command: "fx.c9/run",
    host: "h",
    invocationId: id(i),
    outcome: "rejected",
    reason: "preset_denied",
    type: "final",
  });

/** Calls `from` to `to` (exclusive), one a minute from `minute`, each start, process and final. */
function calls(from: number, to: number, minute: number): string {
  let text = "";
  for (let i = from; i < to; i++) {
    const m = minute + (i - from);
    if (i % 7 === 0) text += rejected(i, m);
    else
      text +=
        start(i, m) +
        processLine(i) +
        final(
          i,
          m,
          i % 4 === 1 ? "command_failed" : "succeeded",
          i % 4 === 1 ? "exit_status" : "completed",
        );
  }
  return text;
}

const archiveDir = (root: string) => join(root, "journal", "archive");
const seg = (root: string, n: number) =>
  join(archiveDir(root), `${String(n).padStart(10, "0")}.jsonl`);

/**
 * A history of three archive segments (the first over several 64 KiB blocks),
 * with a call whose start and final lie in different segments, times that go
 * back between segments, a damaged line, a newest segment appended to by the archiver, and a
 * live segment that has no index.
 */
async function history(root: string): Promise<void> {
  mkdirSync(archiveDir(root), { recursive: true });
  const live = join(root, "journal", "live");
  mkdirSync(live, { recursive: true });
  // 1: calls 0–699 from minute 0, and the start of call 5000.
  // A damaged line is passed over by a full scan and by the index alike.
  writeFileSync(
    seg(root, 1),
    `${calls(0, 300, 0)}not a record\n${calls(300, 700, 300)}${start(5000, 700)}`,
  );
  // 2: its final, then calls older than the end of 1 (a host that closed late).
  // An id of another length: this segment's index keeps its ids as a list, not packed.
  const odd = rejected(0, 650).replace(id(0), "odd-id");
  writeFileSync(seg(root, 2), final(5000, 701) + calls(700, 800, 600) + odd);
  // 3: begun by hand, then two live segments archived into it.
  writeFileSync(seg(root, 3), calls(800, 850, 1000));
  const locks = stateLocks(realpathSync(root));
  const retention = async () => ({ maxAgeMs: 1e12, maxBytes: 1e12 });
  const archiving = { stateRoot: root, locks, host: "test-host", retention };
  writeFileSync(join(live, "a.000000.jsonl"), calls(850, 900, 1100));
  expect(await archiveSegment(join(live, "a.000000.jsonl"), archiving)).toBe(true);
  writeFileSync(join(live, "b.000000.jsonl"), calls(900, 950, 1200) + start(6000, 1300));
  expect(await archiveSegment(join(live, "b.000000.jsonl"), archiving)).toBe(true);
  // Live: the final of 6000, and newer calls.
  writeFileSync(join(live, "c.000000.jsonl"), final(6000, 1301) + calls(950, 980, 1400));
}

const FILTERS: [string, RunFilter][] = [
  ["everything", { limit: 10_000 }],
  ["the newest", {}],
  ["the newest three", { limit: 3 }],
  ["a command", { command: "fx.c2/run", limit: 10_000 }],
  ["a command, newest few", { command: "fx.c3/run", limit: 5 }],
  ["a command no one ran", { command: "fx.none/run" }],
  ["refused calls", { outcome: "rejected", limit: 10_000 }],
  ["a reason", { reason: "exit_status", limit: 40 }],
  ["a surface and preset", { surface: "mcp", preset: "agent", limit: 10_000 }],
  ["an old window", { since: time(10), until: time(20) }],
  ["an old window, few", { since: time(100), until: time(400), limit: 7 }],
  ["a window across segments", { since: time(590), until: time(710), limit: 10_000 }],
  ["since an old time", { since: time(5) }],
  ["until an old time", { until: time(3), limit: 10_000 }],
  ["a window with nothing", { since: time(5000), until: time(6000) }],
  ["the split call's window", { since: time(699), until: time(702) }],
  ["a window and a command", { since: time(0), until: time(300), command: "fx.c1/run", limit: 9 }],
];

/**
 * A copy of a history that can never hold an index (a directory stands where
 * each would be written), so every read of it is a full scan.
 */
function unindexable(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  for (const name of readdirSync(archiveDir(to))) {
    if (name.endsWith(".index.json")) removeDir(join(archiveDir(to), name));
    else mkdirSync(indexFile(join(archiveDir(to), name)));
  }
  return to;
}

describe("archive segment indexes", () => {
  const indexed = join(work, "indexed");
  const plain = join(work, "plain");

  beforeAll(async () => {
    await history(indexed);
    unindexable(indexed, plain);
    // The first read that needs them writes the indexes the archiver did not.
    await listRuns(indexed, { command: "fx.none/run" });
  });

  it("is written by the archiver for the segment it appends to, and by the first read for the others", async () => {
    const names = readdirSync(archiveDir(indexed)).sort();
    expect(names.filter((x) => x.endsWith(".index.json"))).toHaveLength(3);
    for (const k of [1, 2, 3]) expect(await loadIndex(seg(indexed, k))).toBeDefined();
    // The live segment has none.
    expect(readdirSync(join(indexed, "journal", "live"))).toEqual(["c.000000.jsonl"]);
  });

  it.each(FILTERS)("lists %s as a full scan does", async (_, filter) => {
    expect(await listRuns(indexed, filter)).toEqual(await listRuns(plain, filter));
  });

  it("finds every call, and no unknown one, as a full scan does", async () => {
    // Every eleventh call (each kind, each segment, the live one), the split ones, an unknown one.
    const some = Array.from({ length: 90 }, (_, i) => id(i * 11));
    const ids = [...some, id(699), id(700), id(979), id(5000), id(6000), id(7777), "odd-id"];
    for (const x of ids) expect(await findRun(indexed, x)).toEqual(await findRun(plain, x));
    expect(await findRun(indexed, id(5000))).toMatchObject({ outcome: "succeeded" });
    expect(await findRun(indexed, id(7777))).toBeUndefined();
    expect(await findRun(indexed, "odd-id")).toMatchObject({ outcome: "rejected" });
  });
});

describe("an index that does not hold is ignored and rebuilt", () => {
  const cases: [string, (root: string) => void][] = [
    ["missing", (root) => removeDir(indexFile(seg(root, 1)))],
    ["not JSON", (root) => writeFileSync(indexFile(seg(root, 1)), "{ not an index")],
    [
      "of another format",
      (root) => {
        const f = indexFile(seg(root, 1));
        const text = readFileSync(f, "utf8");
        writeFileSync(f, text.replace(JOURNAL_INDEX_FORMAT, "rukh.journal-index/0"));
      },
    ],
    [
      "damaged (its body no longer matches its digest)",
      (root) => {
        const f = indexFile(seg(root, 1));
        // Rename a call in the index: trusted, it would hide that call.
        const text = readFileSync(f, "utf8");
        expect(text).toContain(id(3));
        writeFileSync(f, text.replace(id(3), id(9998)));
      },
    ],
    ["stale (its segment grew)", (root) => appendFileSync(seg(root, 1), final(1234, 1))],
    [
      "stale (its segment rewritten to the same size and time)",
      (root) => {
        const f = seg(root, 1);
        const { atime, mtime } = statSync(f);
        writeFileSync(f, readFileSync(f, "utf8").replace(time(699), time(1999)));
        utimesSync(f, atime, mtime);
      },
    ],
  ];

  it.each(cases)("%s", async (_, spoil) => {
    const root = join(work, `spoiled-${cases.findIndex(([name]) => name === _)}`);
    await history(root);
    await listRuns(root, { command: "fx.none/run" });
    spoil(root);
    const bytes = readFileSync(seg(root, 1));
    const plain = unindexable(root, `${root}-plain`);
    for (const filter of [{ since: time(0), until: time(2) }, { until: time(1999), limit: 3 }, {}])
      expect(await listRuns(root, filter)).toEqual(await listRuns(plain, filter));
    for (const x of [id(3), id(1234), id(699)])
      expect(await findRun(root, x)).toEqual(await findRun(plain, x));
    // The segment is as it was; its index holds again.
    expect(readFileSync(seg(root, 1))).toEqual(bytes);
    expect(await loadIndex(seg(root, 1))).toBeDefined();
    expect(await loadIndex(seg(plain, 1))).toBeUndefined();
  });

  it("leaves quarantined segments alone", async () => {
    const root = join(work, "quarantine");
    await history(root);
    const q = join(root, "journal", "quarantine");
    mkdirSync(q, { recursive: true });
    writeFileSync(join(q, "2026-01-01T00-00-00.000Z-x.000000.jsonl"), calls(2000, 2010, 0));
    await listRuns(root, { command: "fx.none/run" });
    await findRun(root, id(2003));
    expect(readdirSync(q)).toEqual(["2026-01-01T00-00-00.000Z-x.000000.jsonl"]);
  });
});

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** An index file's three lines: the line naming the format and digests, the header, the detail. */
function indexLines(root: string, n: number): [Record<string, unknown>, string, string] {
  const [head, header, detail] = readFileSync(indexFile(seg(root, n)), "utf8").split("\n");
  return [JSON.parse(head!), header!, detail!];
}

/** Rewrites the index of segment `n` as the first format kept it: one body of everything, one digest. */
function asFormatOne(root: string, n: number): void {
  const [, header, detail] = indexLines(root, n);
  const { count, idFilter, newestAt, ...rest } = JSON.parse(header);
  const body = JSON.stringify({ ...rest, ...JSON.parse(detail) });
  const head = JSON.stringify({ format: "rukh.journal-index/1", body: sha256(body) });
  writeFileSync(indexFile(seg(root, n)), `${head}\n${body}`);
}

describe("an index is a header read first and a detail read when needed", () => {
  it("names its format and the digest of each part on its first line", async () => {
    const root = join(work, "parts");
    await history(root);
    await listRuns(root, { command: "fx.none/run" });
    const [head, header, detail] = indexLines(root, 1);
    expect(head).toEqual({
      format: JOURNAL_INDEX_FORMAT,
      header: sha256(header),
      detail: sha256(detail),
    });
    expect(JOURNAL_INDEX_FORMAT).toBe("rukh.journal-index/2");
    // What passing over a segment needs is in the header; the ids and their spans are not.
    const h = JSON.parse(header);
    expect(h).toMatchObject({
      from: time(0),
      to: time(700),
      count: 701,
      commands: ["fx.c0/run", "fx.c1/run", "fx.c2/run", "fx.c3/run", "fx.c9/run"],
      newestAt: Date.parse(time(700)),
    });
    expect(header).not.toContain(id(3));
    expect(Object.keys(JSON.parse(detail)).sort()).toEqual([
      "blockFrom",
      "blockTo",
      "blocks",
      "ids",
      "spans",
    ]);
    expect(detail).toContain(id(3));
  });

  it("passes over a segment by its header alone: a damaged detail is not read until a call in it is asked for", async () => {
    const root = join(work, "lazy");
    await history(root);
    await listRuns(root, { command: "fx.none/run" });
    const plain = unindexable(root, `${root}-plain`);
    // Segments 2 and 3 get a detail that no longer matches its digest (a call renamed).
    for (const n of [2, 3]) {
      const f = indexFile(seg(root, n));
      const [head, header, detail] = readFileSync(f, "utf8").split("\n");
      writeFileSync(f, `${head}\n${header}\n${detail!.replace(/0{4}(\d{8})/, "9999$1")}`);
    }
    const damaged = () => [2, 3].map((n) => readFileSync(indexFile(seg(root, n))));
    const before = damaged();
    // Each of these passes over 2 and 3, or reads them from their end, or asks about an id they lack.
    const passing: RunFilter[] = [
      { command: "fx.none/run" },
      { since: time(10), until: time(20) },
      { since: time(100), until: time(400), limit: 7 },
      {},
    ];
    for (const f of passing) expect(await listRuns(root, f)).toEqual(await listRuns(plain, f));
    for (const x of [id(7777), id(960), id(3)])
      expect(await findRun(root, x)).toEqual(await findRun(plain, x));
    expect(damaged()).toEqual(before);
    // A call of segment 3: its detail is read, found damaged, and the segment read and indexed anew.
    expect(await findRun(root, id(820))).toEqual(await findRun(plain, id(820)));
    expect(damaged()[1]).not.toEqual(before[1]);
    // A window in segment 2: the same.
    const f = { since: time(650), until: time(700), limit: 10_000 };
    expect(await listRuns(root, f)).toEqual(await listRuns(plain, f));
    expect(damaged()[0]).not.toEqual(before[0]);
    for (const n of [2, 3]) {
      const [head, header, detail] = indexLines(root, n);
      expect(head.detail).toBe(sha256(detail));
      expect(head.header).toBe(sha256(header));
    }
  });

  it("rebuilds an index of the first format in the current one, answering as a full scan", async () => {
    const root = join(work, "format-one");
    await history(root);
    await listRuns(root, { command: "fx.none/run" });
    const plain = unindexable(root, `${root}-plain`);
    for (const n of [1, 2, 3]) asFormatOne(root, n);
    expect(await loadIndex(seg(root, 1))).toBeUndefined();
    for (const [, filter] of FILTERS)
      expect(await listRuns(root, filter)).toEqual(await listRuns(plain, filter));
    for (const x of [id(3), id(699), id(5000), id(820), id(7777)])
      expect(await findRun(root, x)).toEqual(await findRun(plain, x));
    for (const n of [1, 2, 3]) {
      expect(indexLines(root, n)[0].format).toBe(JOURNAL_INDEX_FORMAT);
      expect(await loadIndex(seg(root, n))).toBeDefined();
    }
  });
});

describe("a time window is read from its newest blocks", () => {
  /**
   * One segment of 2,700 calls over some twenty blocks, larger than the
   * tails a listing reads first: quarters of an hour of 90 calls, six to a
   * minute, each pair of quarters written in the wrong order (hosts that
   * closed late), so that blocks meet inside a minute and their times go
   * back; every seventh call refused. Calls of the sixth quarter, and some
   * others, end in a newer segment dated days later, which a window passes
   * over: none of them is listed.
   */
  async function shuffled(root: string): Promise<void> {
    mkdirSync(archiveDir(root), { recursive: true });
    let old = "";
    let later = "";
    for (let i = 0; i < 2700; i++) {
      const quarter = Math.floor(i / 90) ^ 1;
      const m = quarter * 15 + Math.floor((i % 90) / 6);
      if (i % 7 === 0) old += rejected(i, m);
      else if (quarter === 5 || i % 25 === 1) {
        old += start(i, m) + processLine(i);
        later += final(i, 20_000 + i);
      } else old += start(i, m) + processLine(i) + final(i, m);
    }
    writeFileSync(seg(root, 1), old);
    writeFileSync(seg(root, 2), later + calls(5000, 5010, 21_000));
    await listRuns(root, { command: "fx.none/run" });
  }

  it.each([
    [0, 100],
    [70, 90],
    [undefined, 30],
    [157, 157],
    [300, undefined],
  ])("lists from minute %s to %s, at every limit, as a full scan does", async (since, until) => {
    const root = join(work, `shuffled-${since}-${until}`);
    await shuffled(root);
    const plain = unindexable(root, `${root}-plain`);
    expect(statSync(seg(root, 1)).size).toBeGreaterThan(1_048_576);
    for (const command of [undefined, "fx.c2/run"])
      for (const limit of [1, 3, 8, 21, 50, 160, 10_000]) {
        const filter: RunFilter = {
          limit,
          ...(since !== undefined && { since: time(since) }),
          ...(until !== undefined && { until: time(until) }),
          ...(command !== undefined && { command }),
        };
        expect(await listRuns(root, filter)).toEqual(await listRuns(plain, filter));
      }
  });

  it("reads on past a block whose time equals the last one listed: of calls at one time, the first written comes first", async () => {
    // Block 1 ends with three calls of minute 10, block 2 begins with three more, then twenty later ones.
    const root = join(work, "tie");
    mkdirSync(archiveDir(root), { recursive: true });
    const call = (i: number, m: number) => start(i, m) + processLine(i) + final(i, m);
    let text = "";
    let i = 0;
    while (text.length < 60_000) text += call(i++, 1);
    for (let k = 0; k < 3; k++) text += call(i++, 10);
    while (text.length < 65_536) text += call(i++, 1);
    const tied = [i, i + 1, i + 2];
    for (let k = 0; k < 3; k++) text += call(i++, 10);
    for (let m = 11; m <= 30; m++) text += call(i++, m);
    writeFileSync(seg(root, 1), text);
    await listRuns(root, { command: "fx.none/run" });
    const plain = unindexable(root, `${root}-plain`);
    const filter = { since: time(0), until: time(40), limit: 21 };
    const listed = await listRuns(root, filter);
    expect(listed).toEqual(await listRuns(plain, filter));
    // The 21st is the first call of minute 10 in the file, in block 1, not one of block 2's.
    expect(listed[20]).toMatchObject({ startedAt: time(10) });
    expect(tied.map(id)).not.toContain(listed[20]!.invocationId);
  });

  it("stops reading once the runs it lists are later than any block left unread", async () => {
    // Twenty calls of minutes 11 to 30 in the last block; the first block's calls are of minute 1.
    const root = join(work, "stop");
    mkdirSync(archiveDir(root), { recursive: true });
    const call = (i: number, m: number) => start(i, m) + processLine(i) + final(i, m);
    let text = "";
    let i = 0;
    while (text.length < 65_536) text += call(i++, 1);
    for (let m = 11; m <= 30; m++) text += call(i++, m);
    const f = seg(root, 1);
    // A time of whole seconds, which utimes sets back exactly.
    const stamp = () => utimesSync(f, 1_800_000_000, 1_800_000_000);
    writeFileSync(f, text);
    stamp();
    await listRuns(root, { command: "fx.none/run" });
    // Redate a call of the first block behind the index's back (its stamp sees only the last 64 KiB).
    writeFileSync(f, text.replace(`"at":"${time(1)}"`, `"at":"${time(35)}"`));
    stamp();
    expect(await loadIndex(f)).toBeDefined();
    const window = { since: time(0), until: time(40) };
    // Twenty are listed from the last block alone: the redated call is never read.
    const twenty = await listRuns(root, { ...window, limit: 20 });
    expect(twenty.map((r) => r.startedAt)).toEqual(
      Array.from({ length: 20 }, (_, k) => time(30 - k)),
    );
    // The twenty-first needs the first block: read, the redated call is the newest.
    expect((await listRuns(root, { ...window, limit: 21 }))[0]?.startedAt).toBe(time(35));
  });
});

describe("the id filter", () => {
  const uuid = (seed: string) => {
    const h = createHash("sha256").update(seed).digest("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };

  it("keeps 20 bits per id, says maybe of every id it holds, and of about one other in 15,000", () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => uuid(`in ${i}`)).sort();
    const filter = filterOf(listOf(ids));
    expect(filter.bytes.length).toBe(25_000);
    for (const x of ids) expect(mayHold(filter, idHashes(x))).toBe(true);
    let wrong = 0;
    for (let i = 0; i < 300_000; i++) if (mayHold(filter, idHashes(uuid(`out ${i}`)))) wrong++;
    // 20 expected; a bound of one in 5,000 leaves room, and never a fixed seed's luck.
    expect(wrong).toBeLessThan(60);
  });
});
