import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createBudget } from "../src/_budget.js";

// The bound on questions to an issuer, on a clock the test moves: so many
// at once, so many started per second, so many waiting, each not for long.

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A question that is answered when the test says so; `started` counts those begun. */
function questions() {
  const state = { started: 0, running: 0, most: 0 };
  const answers: (() => void)[] = [];
  const ask = () =>
    new Promise<string>((resolve) => {
      state.started++;
      state.running++;
      state.most = Math.max(state.most, state.running);
      answers.push(() => {
        state.running--;
        resolve("answered");
      });
    });
  const answerAll = async () => {
    while (answers.length > 0) answers.shift()!();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { state, ask, answerAll };
}

describe("a budget of questions", () => {
  it("runs so many at once, queues so many more, and tells the rest when to come back", async () => {
    const budget = createBudget({ inFlight: 2, perSecond: 1_000, waiting: 3, waitMs: 60_000 });
    const q = questions();
    const all = Array.from({ length: 10 }, () => budget.run(q.ask));
    await vi.advanceTimersByTimeAsync(0);
    expect(q.state.started).toBe(2);
    for (let i = 0; i < 3; i++) await q.answerAll();
    const outcomes = await Promise.all(all);
    expect(outcomes.filter((o) => o === "answered").length).toBe(5);
    const over = outcomes.filter((o) => typeof o === "object");
    expect(over.length).toBe(5);
    for (const o of over) expect(o).toEqual({ retryAfterSeconds: 1 });
    expect(q.state.most).toBe(2);
  });

  it("starts so many per second, the queue waiting for the bucket to fill", async () => {
    const budget = createBudget({ inFlight: 100, perSecond: 2, waiting: 10, waitMs: 60_000 });
    const q = questions();
    const all = Array.from({ length: 5 }, () => budget.run(q.ask));
    await vi.advanceTimersByTimeAsync(0);
    expect(q.state.started).toBe(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(q.state.started).toBe(3);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(q.state.started).toBe(5);
    await q.answerAll();
    expect(await Promise.all(all)).toEqual(Array(5).fill("answered"));
  });

  it("sends back a question that waited too long, and frees its place", async () => {
    const budget = createBudget({ inFlight: 1, perSecond: 1_000, waiting: 1, waitMs: 2_000 });
    const q = questions();
    const first = budget.run(q.ask);
    const second = budget.run(q.ask);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await second).toEqual({ retryAfterSeconds: 1 });
    // Its place is free again: the next one waits in it, and runs once the first is answered.
    const third = budget.run(q.ask);
    await q.answerAll();
    expect(await first).toBe("answered");
    await vi.advanceTimersByTimeAsync(0);
    await q.answerAll();
    expect(await third).toBe("answered");
    expect(q.state.started).toBe(2);
  });
});

describe("a budget shared by peers", () => {
  /** A question that answers when told, recording which peer's question started. */
  function peers() {
    const started: string[] = [];
    const answers: (() => void)[] = [];
    const ask = (peer: string) => () =>
      new Promise<string>((resolve) => {
        started.push(peer);
        answers.push(() => resolve("answered"));
      });
    const answerOne = async () => {
      answers.shift()?.();
      await vi.advanceTimersByTimeAsync(0);
    };
    return { started, ask, answerOne };
  }

  it("gives a peer that holds no place one of the places another peer holds, and starts it next", async () => {
    const budget = createBudget({ inFlight: 2, perSecond: 1_000, waiting: 4, waitMs: 60_000 });
    const q = peers();
    const flood = Array.from({ length: 10 }, () => budget.run(q.ask("flood"), "flood"));
    await vi.advanceTimersByTimeAsync(0);
    // Every place is the flood's: 2 asked, 4 waiting, and the rest told to come back.
    expect(q.started).toEqual(["flood", "flood"]);
    const user = budget.run(q.ask("user"), "user");
    await vi.advanceTimersByTimeAsync(0);
    // The flood's newest waiting place went to the user, whose question goes before the flood's others.
    await q.answerOne();
    expect(q.started).toEqual(["flood", "flood", "user"]);
    for (let i = 0; i < 6; i++) await q.answerOne();
    expect(await user).toBe("answered");
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((o) => o === "answered").length).toBe(5);
    expect(outcomes.filter((o) => typeof o === "object").length).toBe(5);
  });

  it("takes a place only from a peer that would still hold more, so peers that share evenly keep theirs", async () => {
    const budget = createBudget({ inFlight: 1, perSecond: 1_000, waiting: 3, waitMs: 60_000 });
    const q = peers();
    const a = [budget.run(q.ask("a"), "a"), budget.run(q.ask("a"), "a")];
    const b = [budget.run(q.ask("b"), "b"), budget.run(q.ask("b"), "b")];
    await vi.advanceTimersByTimeAsync(0);
    // Full, two places each: a third of either is told to come back, and so is a newcomer's second.
    expect(await budget.run(q.ask("a"), "a")).toEqual({ retryAfterSeconds: 1 });
    const c = budget.run(q.ask("c"), "c");
    expect(await budget.run(q.ask("c"), "c")).toEqual({ retryAfterSeconds: 1 });
    for (let i = 0; i < 4; i++) await q.answerOne();
    const outcomes = await Promise.all([...a, ...b, c]);
    expect(outcomes.filter((o) => o === "answered").length).toBe(4);
    expect(await c).toBe("answered");
  });

  it("without peers named, is the first-come budget it always was", async () => {
    const budget = createBudget({ inFlight: 1, perSecond: 1_000, waiting: 2, waitMs: 60_000 });
    const q = peers();
    const all = ["x", "y", "z", "w"].map((p) => budget.run(q.ask(p)));
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 3; i++) await q.answerOne();
    expect(q.started).toEqual(["x", "y", "z"]);
    expect(await all[3]).toEqual({ retryAfterSeconds: 1 });
  });
});
