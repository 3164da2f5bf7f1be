import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, expect, it } from "vitest";
import { followRuns } from "../../src/history/_follow.js";
import { findRun, listRuns } from "../../src/history/_runs.js";
import { call, makeState, openCore, startRecord } from "../_helpers.js";

// Past runs read back from the journal: the newest of a large segment from
// its end, and calls followed as they start and end.
const work = tempDir("rukh-history-");
afterAll(() => removeDir(work));

it("lists the newest runs of a large segment from its end, and all of them when asked", async () => {
  const root = join(work, "large");
  const dir = join(root, "journal", "archive");
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  const n = 1_500;
  for (let i = 0; i < n; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    lines.push(
      JSON.stringify(startRecord(id, "h", { at, surface: "mcp" })),
      JSON.stringify({
        at,
        host: "h",
        invocationId: id,
        outcome: "succeeded",
        reason: "completed",
        type: "final",
      }),
    );
  }
  writeFileSync(join(dir, "0000000001.jsonl"), `${lines.join("\n")}\n`);
  const newest = await listRuns(root, { limit: 3 });
  expect(newest.map((r) => r.invocationId.slice(-4))).toEqual(["1499", "1498", "1497"]);
  expect(newest[0]).toMatchObject({
    outcome: "succeeded",
    surface: "mcp",
    command: "fx.main/hello",
  });
  expect(await listRuns(root, { limit: 5_000 })).toHaveLength(n);
  expect((await findRun(root, newest[2]!.invocationId))?.startedAt).toBe(newest[2]!.startedAt);
});

it("follows the journal: each call that starts or ends after the follower is ready, rejections and archived hosts included, once", async () => {
  const { root, state } = await makeState({ at: join(work, "follow") });
  const stop = new AbortController();
  let ready!: () => void;
  const marked = new Promise<void>((r) => {
    ready = r;
  });
  // A call before the follower is history: it is not told.
  const before = await openCore(state);
  await before.invoke(call("fx.main/hello", { name: "old" }));
  await before.close();
  const events: { event: string; id: string; reason?: string }[] = [];
  const following = (async () => {
    for await (const e of followRuns(root, { signal: stop.signal, intervalMs: 20, onReady: ready }))
      events.push({
        event: e.event,
        id: e.run.invocationId,
        ...(e.run.reason && { reason: e.run.reason }),
      });
  })();
  await marked;
  const core = await openCore(state);
  const ok = await core.invoke(call("fx.main/hello", { name: "Ada" }));
  const unknown = await core.invoke(call("fx.main/nope"));
  const refused = await core.invoke({
    command: { identity: "fx.main/hello" },
    supplied: { json: { name: 7 } },
    surface: "mcp",
  });
  // Closing archives the host's segment: what it held is not told again.
  await core.close();
  await new Promise((r) => setTimeout(r, 200));
  stop.abort();
  await following;
  expect(events).toEqual([
    { event: "started", id: ok.invocationId },
    { event: "ended", id: ok.invocationId, reason: "completed" },
    { event: "ended", id: unknown.invocationId, reason: "not_found" },
    { event: "ended", id: refused.invocationId, reason: "invalid_input" },
  ]);
});

it("tells a short-lived host's calls even when its segment is archived before a look", async () => {
  const { root, state } = await makeState({ at: join(work, "follow-archived") });
  const stop = new AbortController();
  let ready!: () => void;
  const marked = new Promise<void>((r) => {
    ready = r;
  });
  const ids: string[] = [];
  const following = (async () => {
    for await (const e of followRuns(root, {
      signal: stop.signal,
      intervalMs: 1_000,
      onReady: ready,
    }))
      if (e.event === "ended") ids.push(e.run.invocationId);
  })();
  await marked;
  const core = await openCore(state);
  const ok = await core.invoke(call("fx.main/hello", { name: "Ada" }));
  await core.close();
  expect(readdirSync(join(root, "journal", "live"))).toEqual([]);
  await new Promise((r) => setTimeout(r, 1_300));
  stop.abort();
  await following;
  expect(ids).toEqual([ok.invocationId]);
});
