import { describe, expect, it } from "vitest";
import {
  CLOCK_AHEAD_MAX_MS,
  CLOCK_BEHIND_MAX_MS,
  readClock,
  retentionVerdict,
} from "../../src/journal/_retention.js";

const DAY = 86_400_000;
const J = Date.UTC(2026, 11, 3);

describe("readClock", () => {
  it.each([
    ["no record to compare with", J, null, { kind: "unknown" }],
    ["the same time", J, J, { kind: "agrees", journalTime: J }],
    ["a day ahead, at the bound", J + CLOCK_AHEAD_MAX_MS, J, { kind: "agrees", journalTime: J }],
    [
      "past a day ahead",
      J + CLOCK_AHEAD_MAX_MS + 1,
      J,
      { kind: "ahead", journalTime: J, byMs: CLOCK_AHEAD_MAX_MS + 1 },
    ],
    ["60 days ahead", J + 60 * DAY, J, { kind: "ahead", journalTime: J, byMs: 60 * DAY }],
    [
      "five minutes behind, at the bound",
      J - CLOCK_BEHIND_MAX_MS,
      J,
      { kind: "agrees", journalTime: J },
    ],
    [
      "past five minutes behind",
      J - CLOCK_BEHIND_MAX_MS - 1,
      J,
      { kind: "behind", journalTime: J, byMs: CLOCK_BEHIND_MAX_MS + 1 },
    ],
    ["60 days behind", J - 60 * DAY, J, { kind: "behind", journalTime: J, byMs: 60 * DAY }],
  ] as const)("%s", (_, now, journalTime, reading) => {
    expect(readClock(now, journalTime)).toEqual(reading);
  });
});

describe("retentionVerdict", () => {
  const agrees = readClock(J, J);
  const budget = {
    maxAgeMs: 30 * DAY,
    maxBytes: 1_000,
    totalBytes: 500,
    clock: agrees,
    before: null,
  };
  it.each([
    ["a segment within the age and size", { size: 10, newestAt: J - 29 * DAY }, {}, null],
    ["a segment past the age", { size: 10, newestAt: J - 31 * DAY }, {}, "age"],
    ["any segment past the size", { size: 10, newestAt: J }, { totalBytes: 1_001 }, "size"],
    [
      "past the size, on a skewed clock",
      { size: 10, newestAt: J },
      { totalBytes: 1_001, clock: readClock(J + 60 * DAY, J) },
      "size",
    ],
    [
      "past the age, on a clock ahead",
      { size: 10, newestAt: J - 31 * DAY },
      { clock: readClock(J + 60 * DAY, J) },
      null,
    ],
    [
      "past the age, on a clock behind",
      { size: 10, newestAt: J - 31 * DAY },
      { clock: readClock(J - 60 * DAY, J) },
      null,
    ],
    [
      "past the age, nothing to compare with",
      { size: 10, newestAt: J - 31 * DAY },
      { clock: readClock(J, null) },
      null,
    ],
    ["a segment with no readable record", { size: 10, newestAt: null }, {}, null],
    [
      "back-dated records after a younger segment",
      { size: 10, newestAt: J - 90 * DAY },
      { before: J - DAY },
      null,
    ],
  ] as const)("%s", (_, segment, over, verdict) => {
    expect(retentionVerdict(segment, { ...budget, ...over })).toBe(verdict);
  });
});
