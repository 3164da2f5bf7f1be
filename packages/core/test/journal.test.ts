import { readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, expect, it } from "vitest";
import { type JournalRecord, JournalWriter, readJournal, type WriteFn } from "../src/_journal.js";

const work = tempDir("rukh-journal-");
afterAll(() => removeDir(work));

const record = (i: number): JournalRecord => ({
  type: "final",
  invocationId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  at: "2026-12-01T00:00:00.000Z",
  host: "h",
  outcome: "succeeded",
  reason: "completed",
  command: "fx.main/hello",
});

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
  const journal = await JournalWriter.create(root, "h", faulty);
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
