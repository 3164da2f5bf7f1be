import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fillFileSystem, removeDir, tempDir } from "@rukh/testkit";
import { afterAll, describe, expect, it } from "vitest";
import {
  pruneResults,
  ResultKeeper,
  readKeptResult,
  resultLimitsOf,
  resultsDir,
} from "../../src/journal/_results.js";
import { binding, call, useCores } from "../_helpers.js";

// The validated result of a call is kept beside the journal, owner-only,
// under the owner's limits, and can be read again by its invocation id.
const work = tempDir("rukh-results-");
afterAll(() => removeDir(work));

const DAY = 86_400_000;
const quiet = { error: () => {}, warn: () => {}, info: () => {} } as never;
const limits = { maxResultBytes: 1_000, maxBytes: 10_000, maxAgeMs: 7 * DAY };
const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
const kept = (i: number, text = "x") => ({
  invocationId: id(i),
  command: "fx.main/hello",
  binding: binding(),
  outcome: "succeeded" as const,
  result: { kind: "text" as const, text },
});

describe("a call's result, kept", () => {
  const { at, core } = useCores();

  it("is on disk, owner-only, with the binding that made the call, once the call has ended", async () => {
    const o = await (await core()).invoke(call("fx.main/hello", { name: "kept" }));
    expect(o).toMatchObject({ outcome: "succeeded", commandResult: { text: "hello kept" } });
    const r = await readKeptResult(at.root, o.invocationId);
    expect(r).toMatchObject({
      invocationId: o.invocationId,
      command: "fx.main/hello",
      outcome: "succeeded",
      by: { subject: "alice", actor: "test-agent", taskAuthorityRef: "task-1", preset: "default" },
      result: o.commandResult,
    });
    expect(statSync(resultsDir(at.root)).mode & 0o777).toBe(0o700);
    expect(statSync(join(resultsDir(at.root), `${o.invocationId}.json`)).mode & 0o777).toBe(0o600);
    // A refused call has no result to keep.
    const refused = await (await core()).invoke(call("fx.main/hello", { nope: 1 }));
    expect(refused.outcome).toBe("rejected");
    expect(await readKeptResult(at.root, refused.invocationId)).toBeUndefined();
  });

  it("names nothing outside its directory: an id that is not a UUID reads nothing", async () => {
    writeFileSync(join(work, "secret.json"), JSON.stringify({ invocationId: "../../secret" }));
    expect(await readKeptResult(work, "../../secret")).toBeUndefined();
    expect(await readKeptResult(at.root, `${id(1)}/../x`)).toBeUndefined();
  });
});

describe("the owner's limits on kept results", () => {
  it("default to the call's result limit a result, 64 MiB in all and 7 days; an owner lowers them", () => {
    expect(resultLimitsOf(undefined)).toEqual({
      maxResultBytes: 131_072,
      maxBytes: 67_108_864,
      maxAgeMs: 7 * DAY,
    });
    expect(
      resultLimitsOf({ journal: { results: { maxResultBytes: 10, maxBytes: 20, maxAgeDays: 1 } } }),
    ).toEqual({ maxResultBytes: 10, maxBytes: 20, maxAgeMs: DAY });
    // Never above the result limit itself.
    expect(
      resultLimitsOf({
        journal: { results: { maxResultBytes: 1e6 } },
        limits: { maxCommandResultBytes: 1_000 } as never,
      }).maxResultBytes,
    ).toBe(1_000);
  });

  it("keep only a note, with its size, of a result larger than maxResultBytes, and nothing when it is 0", async () => {
    const root = join(work, "large");
    const keeper = new ResultKeeper(root, "h", quiet);
    expect(await keeper.keep(kept(1, "y".repeat(2_000)), limits)).toBe(false);
    const note = await readKeptResult(root, id(1));
    const bytes = JSON.stringify(kept(1, "y".repeat(2_000)).result).length;
    expect(note).toMatchObject({ notKept: "too_large", bytes });
    expect(note!.result).toBeUndefined();
    expect(await keeper.keep(kept(2), { ...limits, maxResultBytes: 0 })).toBe(false);
    expect(await readKeptResult(root, id(2))).toBeUndefined();
    await keeper.settled();
  });

  it("remove the oldest past maxBytes in all", async () => {
    const root = join(work, "budget");
    const keeper = new ResultKeeper(root, "h", quiet);
    for (let i = 1; i <= 20; i++) {
      await keeper.keep(kept(i, "z".repeat(900)), limits);
      // Modification times a second apart: the order of keeping.
      const t = new Date(Date.now() - (30 - i) * 1_000);
      utimesSync(join(resultsDir(root), `${id(i)}.json`), t, t);
    }
    // The first keep pruned (no host had); a prune now finds the rest.
    await keeper.settled();
    await pruneResults(root, limits, "h");
    const left = readdirSync(resultsDir(root)).filter((n) => n.endsWith(".json"));
    const bytes = left.reduce((s, n) => s + statSync(join(resultsDir(root), n)).size, 0);
    expect(bytes).toBeLessThanOrEqual(limits.maxBytes);
    // The newest stay.
    expect(left.length).toBeLessThan(20);
    expect(left).toContain(`${id(20)}.json`);
    expect(left).not.toContain(`${id(1)}.json`);
  });

  /** A journal whose archive says its newest record (another host's) was written `agoMs` ago. */
  function journalAt(root: string, agoMs: number): void {
    const archive = join(root, "journal", "archive");
    mkdirSync(archive, { recursive: true });
    const record = {
      type: "final",
      invocationId: id(999),
      at: new Date(Date.now() - agoMs).toISOString(),
      host: "other",
      outcome: "succeeded",
      reason: "completed",
      command: "fx.main/hello",
    };
    writeFileSync(join(archive, "0000000001.jsonl"), `${JSON.stringify(record)}\n`);
  }

  it.each([
    ["agrees with the journal", 0, false],
    ["runs 60 days ahead of the journal", 60 * DAY, true],
  ])(
    "remove those past maxAgeDays by the journal's time while this clock %s",
    async (name, skew, stays) => {
      const root = join(work, `age-${name.replaceAll(" ", "-")}`);
      journalAt(root, skew);
      const keeper = new ResultKeeper(root, "h", quiet);
      await keeper.keep(kept(1), limits);
      await keeper.keep(kept(2), limits);
      await keeper.settled();
      const old = new Date(Date.now() - 8 * DAY);
      utimesSync(join(resultsDir(root), `${id(1)}.json`), old, old);
      await pruneResults(root, limits, "h");
      expect(readdirSync(resultsDir(root)).includes(`${id(1)}.json`)).toBe(stays);
      expect(readdirSync(resultsDir(root))).toContain(`${id(2)}.json`);
    },
  );

  it("prune at a host's first keep when no host pruned for ten minutes, and leave a mark", async () => {
    const root = join(work, "first");
    const dir = resultsDir(root);
    mkdirSync(dir, { recursive: true });
    const old = new Date(Date.now() - DAY);
    for (const i of [1, 2]) {
      writeFileSync(join(dir, `${id(i)}.json`), "z".repeat(6_000));
      utimesSync(join(dir, `${id(i)}.json`), old, old);
    }
    const keeper = new ResultKeeper(root, "h", quiet);
    await keeper.keep(kept(3), limits);
    await keeper.settled();
    expect(readdirSync(dir).sort()).toEqual([".pruned", `${id(2)}.json`, `${id(3)}.json`]);
    // Pruned a moment ago: the next host's first keep does not prune again.
    writeFileSync(join(dir, `${id(4)}.json`), "z".repeat(9_000));
    utimesSync(join(dir, `${id(4)}.json`), old, old);
    const next = new ResultKeeper(root, "h2", quiet);
    await next.keep(kept(5), limits);
    await next.settled();
    expect(readdirSync(dir)).toContain(`${id(4)}.json`);
  });
});

// A full disk, for real: a small tmpfs (root only).
const mountPoint = tempDir("rukh-results-full-");
const mounted =
  process.platform === "linux" &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]).status === 0;
if (!mounted)
  console.warn(
    `full-disk results case skipped: ${process.getuid?.() === 0 ? "mount -t tmpfs was refused" : "mounting a tmpfs needs root"}`,
  );
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint]);
  removeDir(mountPoint);
});

describe.skipIf(!mounted)("a result on a full disk", () => {
  it("is not kept, leaves no partial file, and is logged; the next one is kept once there is room", async () => {
    const root = join(mountPoint, "state");
    const errors: string[] = [];
    const logger = { error: (_: unknown, m: string) => errors.push(m), warn() {}, info() {} };
    const keeper = new ResultKeeper(root, "h", logger as never);
    await keeper.keep(kept(1), limits);
    await keeper.settled();
    const filler = fillFileSystem(mountPoint);
    expect(await keeper.keep(kept(2, "w".repeat(900)), limits)).toBe(false);
    expect(errors.some((m) => m.includes("could not be kept"))).toBe(true);
    expect(readdirSync(resultsDir(root)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(await readKeptResult(root, id(2))).toBeUndefined();
    rmSync(filler);
    expect(await keeper.keep(kept(3), limits)).toBe(true);
    expect(await readKeptResult(root, id(3))).toMatchObject({ result: { text: "x" } });
  });
});
