import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJournal } from "@rukh/core";
import { removeDir } from "@rukh/testkit";
import { runCli, spawnCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sleeperState } from "./_sleeper.js";

// Every CLI call is a host of its own that recovers what lost hosts left at
// start-up. Calls that end while other hosts start must never get a second,
// host_lost final from one of them.
const ROUNDS = 20;
const PARALLEL = 25;
let work: string;
let root: string;

beforeAll(async () => {
  ({ work, root } = await sleeperState({
    prefix: "rukh-cli-journal-",
    defaultMs: 30,
    maxConcurrency: 16,
  }));
});
afterAll(() => removeDir(work));

const call = (waitMs: number) =>
  new Promise<number | null>((resolve) => {
    const child = spawnCli(
      { args: ["nap", "--wait-ms", String(waitMs)], stateDir: root },
      "ignore",
    );
    child.once("exit", (code) => resolve(code));
  });

it(`gives each of ${ROUNDS} × ${PARALLEL} parallel CLI calls exactly one final`, async () => {
  const all: (number | null)[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Staggered lengths: some calls end exactly while others' hosts start and recover.
    const codes = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => call((i * 7 + round * 13) % 120)),
    );
    all.push(...codes);
  }
  const lines = (await readJournal(root)).records as readonly {
    type: string;
    invocationId: string;
    reason?: string;
  }[];
  const finals = new Map<string, string[]>();
  for (const r of lines)
    if (r.type === "final")
      finals.set(r.invocationId, [...(finals.get(r.invocationId) ?? []), r.reason!]);
  const starts = lines.filter((r) => r.type === "start");
  expect(starts.length).toBeGreaterThan(ROUNDS * 16 * 0.9);
  const twice = [...finals].filter(([, reasons]) => reasons.length > 1);
  expect(twice).toEqual([]);
  // Every call ran to its own outcome: none was taken for lost while its host lived.
  for (const s of starts) {
    expect(finals.get(s.invocationId)).toHaveLength(1);
    expect(finals.get(s.invocationId)).not.toContain("host_lost");
  }
  // 0, or 4 when over the preset's limit of 16 (rejected at once, a final with no start);
  // under this load a result can also miss its validation time (3).
  expect(all.filter((c) => c !== 0 && c !== 3 && c !== 4)).toEqual([]);
}, 300_000);

it("starts over a lost host's damaged segment, sets it aside, and doctor says so", async () => {
  const live = join(root, "journal", "live");
  mkdirSync(live, { recursive: true });
  writeFileSync(join(live, "lost-host.jsonl"), '{"type":"start",\nnot json\n');
  expect(await call(1)).toBe(0);
  expect(existsSync(join(live, "lost-host.jsonl"))).toBe(false);
  const doctor = runCli({ args: ["doctor"], stateDir: root });
  expect(doctor.stdout).toMatch(/FAIL {2}journal: .*1 damaged segment set aside in .*quarantine/);
  expect(doctor.status).toBe(5);
});

it("lists and shows the calls it journaled, newest first, with filters and a versioned --json", () => {
  const rukh = (...args: string[]) => runCli({ args, stateDir: root });
  const list = rukh("runs", "list", "--limit", "3");
  expect(list.status).toBe(0);
  const lines = list.stdout.trim().split("\n");
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(
    /^[0-9a-f-]{36} {2}\S+ {2}cli {2}fx\.sleep\/nap {2}succeeded\/completed {2}\d+ ms/,
  );
  const json = rukh("--json", "runs", "list", "--outcome", "rejected", "--limit", "2");
  const parsed = JSON.parse(json.stdout) as {
    rukhOutput: number;
    command: string;
    result: { runs: { outcome: string }[] };
  };
  expect(parsed).toMatchObject({ rukhOutput: 2, command: "runs list" });
  expect(parsed.result.runs.every((r) => r.outcome === "rejected")).toBe(true);
  const id = lines[0]!.slice(0, 36);
  const show = rukh("runs", "show", id);
  expect(show.stdout).toContain(`invocationId: ${id}`);
  expect(show.stdout).toContain("actor: rukh-cli");
  const bad = rukh("runs", "list", "--outcome", "fine");
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('--outcome "fine": expected one of succeeded, command_failed');
});
