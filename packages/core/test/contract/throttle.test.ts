import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { throttleProgress } from "../../src/index.js";

// Reports faster than anyone can read them: one per interval, never two
// closer than it, the newest one in each slot, nothing after stop. On the
// test runner's clock, so a busy machine cannot change what it sees.
beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

it("sends at most one report per interval, never early, the newest waiting one", () => {
  const sent: { at: number; progress: number }[] = [];
  const t = throttleProgress(50, (p) => sent.push({ at: Date.now(), progress: p.progress }));
  // A report every 3 ms for 400 ms.
  for (let i = 1; i <= 133; i++) {
    t.report({ progress: i });
    vi.advanceTimersByTime(3);
  }
  vi.advanceTimersByTime(120);
  t.stop();
  // The first at once, then one per 50 ms slot: 400 ms of reports make 9 sends.
  expect(sent.map((s) => s.at - 1_000_000)).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400]);
  for (let i = 1; i < sent.length; i++) {
    expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(50);
    expect(sent[i]!.progress).toBeGreaterThan(sent[i - 1]!.progress);
  }
  expect(sent[0]!.progress).toBe(1);
  // Each slot sends the newest report that waited for it.
  expect(sent[1]!.progress).toBe(17);
  expect(sent.at(-1)!.progress).toBe(133);
  const before = sent.length;
  t.report({ progress: 1e9 });
  vi.advanceTimersByTime(80);
  expect(sent.length).toBe(before);
});

it("keeps a last report that came too soon and sends it in its slot", () => {
  const sent: number[] = [];
  const t = throttleProgress(100, (p) => sent.push(p.progress));
  t.report({ progress: 1 });
  vi.advanceTimersByTime(10);
  t.report({ progress: 100 });
  expect(sent).toEqual([1]);
  vi.advanceTimersByTime(89);
  expect(sent).toEqual([1]);
  vi.advanceTimersByTime(1);
  expect(sent).toEqual([1, 100]);
  t.stop();
});
