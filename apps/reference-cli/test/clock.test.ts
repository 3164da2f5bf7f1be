import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { sleeperState } from "./_sleeper.js";

// Retention judges archive segments by the times of their own records, and
// deletes nothing while this process's clock disagrees with the journal's:
// one call run on a clock 60 days ahead must not wipe the history.
const FAKETIME = "/usr/bin/faketime";
const DAY = 86_400_000;
const SEGMENT = 8_388_608;
const works: string[] = [];
afterAll(() => {
  for (const w of works) removeDir(w);
});
if (!existsSync(FAKETIME))
  console.warn(`wrong-clock tests skipped: faketime (${FAKETIME}) is not installed`);

/** At least `bytes` of final records of another host, all `at` one time, as the archive keeps them. */
function records(at: Date, bytes: number, tag: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${JSON.stringify({
      type: "final",
      invocationId: `00000000-0000-4000-8${tag}-${String(i).padStart(12, "0")}`,
      at: at.toISOString(),
      host: "earlier-host",
      outcome: "succeeded",
      reason: "completed",
      command: "fx.sleep/nap",
    })}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}

/**
 * A state directory whose owner keeps 30 days of journal, with two archive
 * segments: the first's records `firstAgeDays` old, the second's an hour old
 * and so nearly full that the next call's records begin a third.
 */
async function journaled(prefix: string, firstAgeDays: number) {
  const made = await sleeperState({
    prefix,
    defaultMs: 5,
    maxConcurrency: 4,
    config: { journal: { maxAgeDays: 30 } },
  });
  works.push(made.work);
  const archive = join(made.root, "journal", "archive");
  mkdirSync(archive, { recursive: true });
  const now = Date.now();
  const first = join(archive, "0000000001.jsonl");
  const second = join(archive, "0000000002.jsonl");
  writeFileSync(first, records(new Date(now - firstAgeDays * DAY), 4_000, "001"));
  writeFileSync(second, records(new Date(now - 3_600_000), SEGMENT - 600, "002"));
  // The files' own times say what their records say: retention must not need them.
  const old = new Date(now - firstAgeDays * DAY);
  utimesSync(first, old, old);
  /** The CLI on this state directory, on a clock `offset` from this one's when given. */
  const rukh = (args: string[], offset?: string) =>
    runCli({
      via: offset === undefined ? [] : [FAKETIME, "-f", offset],
      args,
      stateDir: made.root,
    });
  return { root: made.root, archive, rukh };
}

const bytesOf = (dir: string) =>
  readdirSync(dir).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
/** The archive's segments, without the index files beside them. */
const segments = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".jsonl"));

describe.skipIf(!existsSync(FAKETIME))("journal retention and a wrong clock", () => {
  it.each([
    ["60 days ahead", "+60d"],
    ["60 days behind", "-60d"],
  ])(
    "a call on a clock %s deletes no archive segment, and doctor names the skew",
    async (_, offset) => {
      const { archive, rukh } = await journaled(
        `rukh-cli-clock${offset[0] === "+" ? "a" : "b"}-`,
        2,
      );
      const before = bytesOf(archive);
      // Doctor on the wrong clock names it, before any call has written on it.
      const doctor = rukh(["doctor"], offset);
      expect(doctor.stdout).toMatch(
        new RegExp(
          `note {2}journal clock: this clock is (59|60) days ${offset[0] === "+" ? "ahead of" : "behind"} the journal's newest record`,
        ),
      );

      const r = rukh(["nap"], offset);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      // The call's own records began segment 3; 1 and 2 are whole.
      expect(segments(archive)).toEqual([
        "0000000001.jsonl",
        "0000000002.jsonl",
        "0000000003.jsonl",
      ]);
      expect(bytesOf(archive)).toBeGreaterThan(before);

      // On the right clock again: a record dated 60 days ahead is named, one dated behind is not.
      const after = rukh(["doctor"]);
      expect(after.stdout).toMatch(
        offset[0] === "+"
          ? /note {2}journal clock: this clock is (59|60) days behind the journal's newest record/
          : /ok {4}journal clock: agrees with the journal's newest record/,
      );
    },
  );

  it("a call on a right clock still deletes the segments past the retention", async () => {
    const { archive, rukh } = await journaled("rukh-cli-clockr-", 40);
    const r = rukh(["nap"]);
    expect(r.status).toBe(0);
    expect(segments(archive)).toEqual(["0000000002.jsonl", "0000000003.jsonl"]);
    const doctor = rukh(["doctor"]);
    expect(doctor.stdout).toMatch(/ok {4}journal clock: agrees with the journal's newest record/);
  });
});
