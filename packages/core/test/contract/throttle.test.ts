import { expect, it } from "vitest";
import { throttleProgress } from "../../src/index.js";

// Reports faster than anyone can read them: one per interval, never two
// closer than it, the newest one in each slot, nothing after stop.
it("sends at most one report per interval, never early, the newest waiting one", async () => {
  const sent: { at: number; progress: number }[] = [];
  const t = throttleProgress(50, (p) => sent.push({ at: Date.now(), progress: p.progress }));
  const start = Date.now();
  for (let i = 1; Date.now() - start < 400; i++) {
    t.report({ progress: i });
    await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, 120));
  t.stop();
  expect(sent.length).toBeGreaterThanOrEqual(5);
  expect(sent.length).toBeLessThanOrEqual(10);
  for (let i = 1; i < sent.length; i++) {
    expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(50);
    expect(sent[i]!.progress).toBeGreaterThan(sent[i - 1]!.progress);
  }
  expect(sent[0]!.progress).toBe(1);
  const before = sent.length;
  t.report({ progress: 1e9 });
  await new Promise((r) => setTimeout(r, 80));
  expect(sent.length).toBe(before);
});
