import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { stateLocks } from "@rukh/profile";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { listRuns } from "../../src/history/_runs.js";
import { ARCHIVE_SEGMENT_BYTES, archiveSegment } from "../../src/journal/_archive.js";
import { indexFile, loadIndex } from "../../src/journal/_journal-index.js";

// Every segment retention parses, by path: a segment whose index holds is not among them.
const parsed = vi.hoisted(() => [] as string[]);
vi.mock("../../src/journal/_journal.js", async (importOriginal) => {
  const journal = await importOriginal<typeof import("../../src/journal/_journal.js")>();
  return {
    ...journal,
    readSegmentLeniently: (file: string, name: string) => {
      parsed.push(file);
      return journal.readSegmentLeniently(file, name);
    },
  };
});

const work = tempDir("rukh-retention-index-");
afterAll(() => removeDir(work));
beforeEach(() => {
  parsed.length = 0;
});

const DAY = 86_400_000;
const archiveDir = (root: string) => join(root, "journal", "archive");
const seg = (root: string, n: number) =>
  join(archiveDir(root), `${String(n).padStart(10, "0")}.jsonl`);

const final = (i: number, daysAgo: number, host = "h") =>
  `${JSON.stringify({
    at: new Date(Date.now() - daysAgo * DAY).toISOString(),
    host,
    invocationId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    outcome: "succeeded",
    reason: "completed",
    type: "final",
  })}\n`;

/**
 * Segments 40, 35 (or `secondDays`) and 10 days old, a full newest one of today, and a live
 * segment whose archiving begins segment 5 and so applies the retention
 * (30 days, no size limit). Every archive segment is indexed.
 */
async function archive(root: string, secondDays = 35): Promise<void> {
  mkdirSync(archiveDir(root), { recursive: true });
  mkdirSync(join(root, "journal", "live"), { recursive: true });
  writeFileSync(seg(root, 1), final(1, 41) + final(2, 40));
  writeFileSync(seg(root, 2), final(3, 36) + final(4, secondDays));
  writeFileSync(seg(root, 3), final(5, 11) + final(6, 10));
  writeFileSync(seg(root, 4), final(7, 0));
  truncateSync(seg(root, 4), ARCHIVE_SEGMENT_BYTES);
  await listRuns(root, { command: "fx.none/run" });
  for (const n of [1, 2, 3, 4]) expect(await loadIndex(seg(root, n))).toBeDefined();
}

/** A copy without indexes, so that retention parses every segment it weighs. */
function plainCopy(root: string): string {
  const to = `${root}-plain`;
  cpSync(root, to, { recursive: true, preserveTimestamps: true });
  for (const name of readdirSync(archiveDir(to)))
    if (name.endsWith(".index.json")) removeDir(join(archiveDir(to), name));
  return to;
}

/** Archives a live segment of host "me" (a new archive segment: retention runs); the segments left. */
async function prune(root: string): Promise<string[]> {
  const live = join(root, "journal", "live", "me.000000.jsonl");
  writeFileSync(live, final(9, 0, "me"));
  const o = {
    stateRoot: root,
    locks: stateLocks(realpathSync(root)),
    host: "me",
    retention: async () => ({ maxAgeMs: 30 * DAY, maxBytes: 1 << 30 }),
  };
  expect(await archiveSegment(live, o)).toBe(true);
  return readdirSync(archiveDir(root))
    .filter((n) => n.endsWith(".jsonl"))
    .sort();
}

const weighed = (root: string, n: number) => parsed.filter((f) => f === seg(root, n)).length;

describe("retention takes an old segment's newest record time from its index", () => {
  it("parses none of the segments it weighs whose index holds, and deletes what parsing deletes", async () => {
    const root = join(work, "indexed");
    await archive(root);
    const plain = plainCopy(root);
    expect(await prune(plain)).toEqual([
      "0000000003.jsonl",
      "0000000004.jsonl",
      "0000000005.jsonl",
    ]);
    expect([1, 2, 3].map((n) => weighed(plain, n))).toEqual([1, 1, 1]);
    expect(await prune(root)).toEqual(["0000000003.jsonl", "0000000004.jsonl", "0000000005.jsonl"]);
    expect([1, 2, 3].map((n) => weighed(root, n))).toEqual([0, 0, 0]);
    // The journal's time still comes from parsing the two newest, without the deciding host.
    expect([4, 5].map((n) => weighed(root, n))).toEqual([1, 1]);
  });

  // Each leaves an index that says segment 2 is 35 days old while its records say a day.
  const spoiled: [string, number, (root: string) => void][] = [
    [
      "stale: the segment rewritten with newer records, same size and time",
      35,
      (root) => {
        const f = seg(root, 2);
        const { size, atime, mtime } = statSync(f);
        writeFileSync(f, final(3, 36) + final(4, 1));
        expect(statSync(f).size).toBe(size);
        utimesSync(f, atime, mtime);
      },
    ],
    [
      "forged: an older newest time written into the header",
      1,
      (root) => {
        const f = indexFile(seg(root, 2));
        const [head, header, detail] = readFileSync(f, "utf8").split("\n");
        const h = { ...JSON.parse(header!), newestAt: Date.now() - 35 * DAY };
        writeFileSync(f, `${head}\n${JSON.stringify(h)}\n${detail}`);
      },
    ],
    [
      "forged: the index of an older segment put beside it",
      1,
      (root) => copyFileSync(indexFile(seg(root, 1)), indexFile(seg(root, 2))),
    ],
  ];

  it.each(spoiled)(
    "%s: it is parsed instead, and kept as parsing keeps it",
    async (name, days, spoil) => {
      const root = join(work, `spoiled-${spoiled.findIndex(([n]) => n === name)}`);
      await archive(root, days);
      spoil(root);
      const plain = plainCopy(root);
      const kept = ["0000000002.jsonl", "0000000003.jsonl", "0000000004.jsonl", "0000000005.jsonl"];
      expect(await prune(plain)).toEqual(kept);
      expect(await prune(root)).toEqual(kept);
      expect(weighed(root, 2)).toBe(1);
    },
  );
});
