import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { commandsDescriptor, processesWith } from "@rukh/testkit";
import { makeExtension } from "@rukh/testkit/extension";
import { describe, expect, it } from "vitest";
import {
  CANCEL_GRACE_MS,
  CLEANUP_WAIT_MS,
  DIAGNOSTICS_MAX_BYTES,
  findRun,
  RESULT_ISSUES_MAX,
  readJournal,
} from "../src/index.js";
import {
  call,
  cleanup,
  MAIN_COMMANDS,
  makeState,
  openCore,
  PROGRAMS,
  useCores,
} from "./_helpers.js";

const { at, core } = useCores();

describe("each fault ends in exactly one outcome", () => {
  it.each([
    ["fx.main/crash", "crashed"],
    ["fx.main/exit0", "no_completion"],
    ["fx.main/exit1_after", "exit_nonzero_after_success"],
    ["fx.main/bad_result", "invalid_result"],
    ["fx.main/no_result", "missing_result"],
    ["fx.main/big_result", "result_too_large"],
  ])("%s → execution_failed/%s", async (identity, reason) => {
    const o = await (await core()).invoke(call(identity));
    expect(o).toMatchObject({ outcome: "execution_failed", reason });
    expect(o.commandResult).toBeUndefined();
    const finals = (await readJournal(at.root)).records.filter(
      (r) => r.invocationId === o.invocationId && r.type === "final",
    );
    expect(finals).toEqual([expect.objectContaining({ outcome: "execution_failed", reason })]);
  });

  it("keeps why a result missed its declaration: in the outcome and the owner's log, pointers only in the journal", async () => {
    const o = await (await core()).invoke(call("fx.main/bad_result"));
    expect(o).toMatchObject({ outcome: "execution_failed", reason: "invalid_result" });
    expect(o.resultIssues).toEqual([
      expect.objectContaining({ path: "/data/total", code: "type_mismatch" }),
    ]);
    expect(o.resultIssues![0]!.message.length).toBeGreaterThan(0);
    const final = (await readJournal(at.root)).records.find(
      (r) => r.invocationId === o.invocationId && r.type === "final",
    );
    expect(final).toMatchObject({ resultIssues: [{ path: "/data/total", code: "type_mismatch" }] });
    // The journal never quotes the result: no message, nothing of "many".
    expect(JSON.stringify(final)).not.toContain("many");
    expect(JSON.stringify(final)).not.toContain(o.resultIssues![0]!.message);
    const log = readFileSync(o.diagnostics.logFile!, "utf8")
      .split("\n")
      .filter((l) => l.includes(o.invocationId) && l.includes("does not match its declaration"));
    expect(log).toHaveLength(1);
    expect(JSON.parse(log[0]!).issues).toEqual(o.resultIssues);
    const run = await findRun(at.root, o.invocationId);
    expect(run?.resultIssues).toEqual([{ path: "/data/total", code: "type_mismatch" }]);
  });

  it("hands progress reports to the caller in order while the call runs, whatever the caller throws", async () => {
    const seen: unknown[] = [];
    const o = await (await core()).invoke({
      ...call("fx.main/progress"),
      onProgress: (p) => {
        seen.push(p);
        throw new Error("a careless listener");
      },
    });
    expect(o).toMatchObject({ outcome: "succeeded", commandResult: { text: "done" } });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
  });

  it("cuts long pointers, and a final record always fits the journal, so the next call still runs", async () => {
    const c = await core();
    const o = await c.invoke(call("fx.main/long_keys"));
    expect(o.reason).toBe("invalid_result");
    for (const i of o.resultIssues ?? []) expect([...i.path].length).toBeLessThanOrEqual(256);
    const final = (await readJournal(at.root)).records.find(
      (r) => r.invocationId === o.invocationId && r.type === "final",
    );
    expect(final).toMatchObject({ outcome: "execution_failed", reason: "invalid_result" });
    const next = await c.invoke(call("fx.main/hello", { name: "after" }));
    expect(next.outcome).toBe("succeeded");
  });

  it("bounds the result issues it keeps", async () => {
    const o = await (await core()).invoke(call("fx.main/many_bad"));
    expect(o.reason).toBe("invalid_result");
    expect(o.resultIssues).toHaveLength(RESULT_ISSUES_MAX);
  });

  it("cancels a hang at the deadline and escalates to SIGTERM", async () => {
    const started = Date.now();
    const o = await (await core("short")).invoke(call("fx.main/hang"));
    expect(o).toMatchObject({ outcome: "cancelled", reason: "deadline" });
    // The escalation fits the preset's 1.5 s budget; only cleanup may follow it.
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(700);
    expect(took).toBeLessThan(1_500 + CLEANUP_WAIT_MS + 1_000);
  });

  it("kills a child that ignores cancel and SIGTERM, with its grandchild", async () => {
    const pidFile = join(at.work, "grandchild.pid");
    // Cancelled once its grandchild exists, not at a deadline a loaded machine
    // may reach before the child has even started it.
    const controller = new AbortController();
    const pending = (await core()).invoke(
      call("fx.main/stubborn", { path: pidFile }, { signal: controller.signal }),
    );
    for (let i = 0; i < 500 && !existsSync(pidFile); i++)
      await new Promise((r) => setTimeout(r, 20));
    const cancelledAt = Date.now();
    controller.abort();
    const o = await pending;
    expect(o).toMatchObject({ outcome: "cancelled", reason: "client_cancel" });
    // It ignored SIGTERM, so the tree was killed after the grace, not before.
    expect(Date.now() - cancelledAt).toBeGreaterThanOrEqual(CANCEL_GRACE_MS);
    expect(Number(readFileSync(pidFile, "utf8"))).toBeGreaterThan(0);
    // Seen from outside, whatever pid namespace it ran in.
    for (let i = 0; i < 50 && processesWith(pidFile).length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(processesWith(pidFile)).toEqual([]);
    const log = readFileSync(o.diagnostics.logFile!, "utf8");
    expect(log).toContain(o.invocationId);
  });

  it("reports a program that cannot be started as spawn_failed", async () => {
    // The fixture's native program names an interpreter that does not exist.
    const o = await (await core()).invoke(call("fx.main/native_tool"));
    expect(o).toMatchObject({ outcome: "execution_failed", reason: "spawn_failed" });
  });

  it("drains 100 MB of stdout into bounded diagnostics with bounded memory", async () => {
    const c = await core();
    // A first call pays for what every first call pays (loading, the store check's hashing): not counted.
    await c.invoke(call("fx.main/exit0"));
    const before = process.memoryUsage().rss;
    const o = await c.invoke(call("fx.main/flood"));
    const growth = process.memoryUsage().rss - before;
    expect(o).toMatchObject({ outcome: "succeeded", commandResult: { text: "flooded" } });
    expect(o.diagnostics.stdoutBytes).toBe(100 * (1 << 20));
    expect(o.diagnostics.stderrBytes).toBe("flood done\n".length);
    expect(o.diagnostics.droppedBytes).toBeGreaterThanOrEqual(
      o.diagnostics.stdoutBytes + o.diagnostics.stderrBytes - DIAGNOSTICS_MAX_BYTES,
    );
    // Bounded, not proportional: keeping the output would grow by 100 MiB or more. The
    // bound leaves room for garbage the collector has not reclaimed yet on a busy machine
    // (44 MiB was seen with every package's suite running at once).
    expect(growth).toBeLessThan(64 * (1 << 20));
  });

  it("runs exactly the concurrency limit and rejects the rest at once", async () => {
    const c = await core("pair");
    const outcomes = await Promise.all(
      [1, 2, 3, 4].map(() => c.invoke(call("fx.main/slow", { wait_ms: 1_500 }))),
    );
    const kinds = outcomes.map((o) => `${o.outcome}/${o.reason}`).sort();
    expect(kinds).toEqual([
      "rejected/concurrency_limit",
      "rejected/concurrency_limit",
      "succeeded/completed",
      "succeeded/completed",
    ]);
  });

  it("reports a client cancel as cancelled/client_cancel", async () => {
    const controller = new AbortController();
    const pending = (await core()).invoke(
      call("fx.main/slow", { wait_ms: 20_000 }, { signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 300);
    expect(await pending).toMatchObject({ outcome: "cancelled", reason: "client_cancel" });
  });

  it("spawns nothing for a call already cancelled when it arrives", async () => {
    const controller = new AbortController();
    controller.abort();
    const o = await (await core()).invoke(
      call("fx.main/hello", { name: "x" }, { signal: controller.signal }),
    );
    expect(o).toMatchObject({ outcome: "cancelled", reason: "client_cancel" });
    expect(o.diagnostics.logFile).toBeUndefined();
    const records = (await readJournal(at.root)).records.filter(
      (r) => r.invocationId === o.invocationId,
    );
    expect(records.map((r) => r.type)).toEqual(["final"]);
  });

  it("reports an owner cancel as cancelled/owner_cancel; the first cause wins", async () => {
    const owner = new AbortController();
    const client = new AbortController();
    const pending = (await core()).invoke(
      call(
        "fx.main/slow",
        { wait_ms: 20_000 },
        { signal: client.signal, ownerSignal: owner.signal },
      ),
    );
    setTimeout(() => {
      owner.abort();
      client.abort();
    }, 300);
    expect(await pending).toMatchObject({ outcome: "cancelled", reason: "owner_cancel" });
  });

  it("gives one outcome when a cancel races the completion", async () => {
    const c = await core();
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const controller = new AbortController();
        const pending = c.invoke(
          call("fx.main/slow", { wait_ms: 100 }, { signal: controller.signal }),
        );
        setTimeout(() => controller.abort(), 60 + i * 15);
        return pending;
      }),
    );
    const records = (await readJournal(at.root)).records;
    for (const o of outcomes) {
      expect(["succeeded/completed", "cancelled/client_cancel"]).toContain(
        `${o.outcome}/${o.reason}`,
      );
      expect(
        records.filter((r) => r.invocationId === o.invocationId && r.type === "final"),
      ).toHaveLength(1);
    }
  });

  it("cancels running calls as owner_cancel when the core closes", async () => {
    const c = await openCore(at.state);
    const pending = c.invoke(call("fx.main/slow", { wait_ms: 20_000 }));
    await new Promise((r) => setTimeout(r, 300));
    await c.close();
    expect(await pending).toMatchObject({ outcome: "cancelled", reason: "owner_cancel" });
  });

  it("exports a grace shorter than the test deadlines", () => {
    expect(CANCEL_GRACE_MS).toBeLessThanOrEqual(1_000);
  });
});

describe("pinning", () => {
  it("runs the release pinned at the start even if a new one is published mid-call", async () => {
    const own = await makeState();
    const c = await openCore(own.state);
    try {
      const pending = c.invoke(call("fx.main/version", { wait_ms: 1_000 }));
      await new Promise((r) => setTimeout(r, 200));
      await own.state.install(
        await makeExtension(
          own.work,
          commandsDescriptor("fx.main", "2.0.0", MAIN_COMMANDS),
          PROGRAMS,
        ),
      );
      const first = await pending;
      expect(first).toMatchObject({ outcome: "succeeded", commandResult: { text: "1.0.0" } });
      const second = await c.invoke(call("fx.main/version"));
      expect(second).toMatchObject({ outcome: "succeeded", commandResult: { text: "2.0.0" } });
      expect(second.revisionId).not.toBe(first.revisionId);
      const stale = await c.invoke(call("fx.main/version", {}, { revisionId: first.revisionId! }));
      expect(stale).toMatchObject({ outcome: "rejected", reason: "obsolete_revision" });
      expect(existsSync(join(own.root, "store"))).toBe(true);
    } finally {
      await c.close();
      cleanup(own.work);
    }
  });
});
