import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltinEnd, BuiltinRequest, HostBinding, InvocationCore } from "../../src/index.js";
import { createInvocationCore, listRuns, readJournal } from "../../src/index.js";
import { parseSegment } from "../../src/journal/_journal.js";
import { cleanup, makeState } from "../_helpers.js";

// A built-in command (the brand's own install, trust, preset changes) is
// admitted and journaled by the core as a command is: refused off the CLI or
// off the owner's authority, run only once its start is on disk, one final.

const OWNER: HostBinding = {
  subject: "alice",
  actor: "acme-cli",
  taskAuthorityRef: "local",
  preset: "default",
};
let at: Awaited<ReturnType<typeof makeState>>;
const cores: InvocationCore[] = [];
beforeAll(async () => {
  at = await makeState();
});
afterAll(async () => {
  for (const c of cores) await c.close();
  cleanup(at.work);
});

async function core(binding: HostBinding = OWNER): Promise<InvocationCore> {
  const c = await createInvocationCore({ state: at.state, binding });
  cores.push(c);
  return c;
}

/** A built-in request whose work counts its runs and ends as `end` says. */
function builtin(
  end: BuiltinEnd | (() => Promise<BuiltinEnd>),
  over: Partial<BuiltinRequest> = {},
): BuiltinRequest & { runs: number } {
  const request = {
    identity: "builtin:preset allow",
    inputs: { preset: "agent", patterns: ["acme.files/*"] },
    surface: "cli" as const,
    release: "acme@1.2.0",
    runs: 0,
    async run() {
      request.runs++;
      return typeof end === "function" ? end() : end;
    },
    ...over,
  };
  return request;
}

async function runOf(invocationId: string) {
  const runs = await listRuns(at.root, { limit: 200 });
  return runs.find((r) => r.invocationId === invocationId);
}

describe("invokeBuiltin", () => {
  it("journals who ran which built-in, with which inputs' digest, its outcome and the revision it published", async () => {
    const published = (await at.state.activeRevisionId())!;
    const request = builtin({ outcome: "succeeded", reason: "completed", published });
    const c = await core();
    const outcome = await c.invokeBuiltin(request);
    expect(request.runs).toBe(1);
    expect(outcome).toMatchObject({ outcome: "succeeded", reason: "completed", published });
    const records = (await readJournal(at.root)).records.filter(
      (r) => r.invocationId === outcome.invocationId,
    );
    expect(records.map((r) => r.type)).toEqual(["start", "final"]);
    expect(records[0]).toMatchObject({
      command: "builtin:preset allow",
      surface: "cli",
      subject: "alice",
      actor: "acme-cli",
      taskAuthorityRef: "local",
      digest: "acme@1.2.0",
      revisionId: published,
      inputsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(records[0]).not.toHaveProperty("inputs");
    expect(records[1]).toMatchObject({ outcome: "succeeded", published });
    expect(await runOf(outcome.invocationId)).toMatchObject({
      command: "builtin:preset allow",
      outcome: "succeeded",
      published,
    });
  });

  it("never journals a built-in's input values, even where the owner records a command's: only their digest", async () => {
    const before = (await at.state.readRevision((await at.state.activeRevisionId())!)).config;
    await at.state.setConfig({ ...before, journal: { ...before.journal, recordInputs: true } });
    try {
      const secret = "https://ada:hunter2-secret@registry.example/acme-files.tgz";
      const outcome = await (await core()).invokeBuiltin(
        builtin({ outcome: "succeeded", reason: "completed" }, { inputs: { packages: [secret] } }),
      );
      const start = (await readJournal(at.root)).records.find(
        (r) => r.invocationId === outcome.invocationId && r.type === "start",
      );
      expect(start).toMatchObject({ inputsDigest: expect.stringMatching(/^sha256:/) });
      expect(start).not.toHaveProperty("inputs");
      expect(JSON.stringify((await readJournal(at.root)).records)).not.toContain("hunter2");
    } finally {
      await at.state.setConfig(before);
    }
  });

  it("refuses a built-in asked for over MCP, and one under a task's authority, recording who asked; the work never runs", async () => {
    for (const [binding, surface, reason] of [
      [OWNER, "mcp", "not_exposed"],
      [{ ...OWNER, taskAuthorityRef: "launch:abc" }, "cli", "preset_denied"],
    ] as const) {
      const request = builtin({ outcome: "succeeded", reason: "completed" }, { surface });
      const outcome = await (await core(binding)).invokeBuiltin(request);
      expect(request.runs).toBe(0);
      expect(outcome).toMatchObject({ outcome: "rejected", reason });
      expect(outcome.message).toMatch(
        surface === "mcp" ? /never MCP tools/ : /owner's own authority/,
      );
      expect(await runOf(outcome.invocationId)).toMatchObject({
        command: "builtin:preset allow",
        outcome: "rejected",
        reason,
        actor: "acme-cli",
        taskAuthorityRef: binding.taskAuthorityRef,
      });
    }
  });

  it("refuses what is not a built-in's identity without running it", async () => {
    for (const identity of [
      "preset allow",
      "builtin:",
      "builtin:Preset",
      "builtin:a  b",
      `builtin:${"x".repeat(65)}`,
    ]) {
      const request = builtin({ outcome: "succeeded", reason: "completed" }, { identity });
      const outcome = await (await core()).invokeBuiltin(request);
      expect(request.runs, identity).toBe(0);
      expect(outcome).toMatchObject({ outcome: "rejected", reason: "not_found" });
    }
  });

  it("does nothing for a call cancelled before it started, and records it cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const request = builtin(
      { outcome: "succeeded", reason: "completed" },
      { ownerSignal: controller.signal },
    );
    const outcome = await (await core()).invokeBuiltin(request);
    expect(request.runs).toBe(0);
    expect(outcome).toMatchObject({ outcome: "cancelled", reason: "owner_cancel" });
    expect(await runOf(outcome.invocationId)).toMatchObject({ outcome: "cancelled" });
  });

  it("records a throw, or an end that is no outcome, as a crash; a published id that is no revision is not kept", async () => {
    const c = await core();
    for (const end of [
      () => Promise.reject(new Error("cannot fetch https://ada:hunter3-secret@registry.example/x")),
      { outcome: "succeeded", reason: "deadline" } as unknown as BuiltinEnd,
      { outcome: "finished", reason: "completed" } as unknown as BuiltinEnd,
    ]) {
      const outcome = await c.invokeBuiltin(builtin(end));
      expect(outcome).toMatchObject({ outcome: "execution_failed", reason: "crashed" });
      expect(outcome.message).toMatch(/failed unexpectedly/);
      expect(await runOf(outcome.invocationId)).toMatchObject({ reason: "crashed" });
    }
    // What it threw is logged by its kind only: no message, which could quote a password.
    const logs = join(at.root, "logs");
    const logged = readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), "utf8"))
      .join("");
    expect(logged).toContain("a built-in command threw");
    expect(logged).not.toContain("hunter3");
    const forged = await c.invokeBuiltin(
      builtin({ outcome: "succeeded", reason: "completed", published: "../../etc" }),
    );
    expect(forged.published).toBeUndefined();
    expect(await runOf(forged.invocationId)).not.toHaveProperty("published");
  });

  it("is one of the host's calls: closing the core waits for it, and one asked after the close is refused unrecorded", async () => {
    const c = await createInvocationCore({ state: at.state, binding: OWNER });
    let release!: () => void;
    const request = builtin(
      () =>
        new Promise<BuiltinEnd>((r) => {
          release = () => r({ outcome: "succeeded", reason: "completed" });
        }),
    );
    const running = c.invokeBuiltin(request);
    await new Promise((r) => setTimeout(r, 50));
    let closed = false;
    const closing = c.close().then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(false);
    release();
    expect((await running).outcome).toBe("succeeded");
    await closing;
    const after = await c.invokeBuiltin(builtin({ outcome: "succeeded", reason: "completed" }));
    expect(after).toMatchObject({ outcome: "rejected", reason: "core_closed" });
    expect(await runOf(after.invocationId)).toBeUndefined();
  });

  it("reads a final's published revision only as a revision id: anything else is a damaged line", () => {
    const id = "a".repeat(64);
    const final = (published: unknown) =>
      `${JSON.stringify({ type: "final", invocationId: "i", at: "2026-12-01T00:00:00.000Z", host: "h", outcome: "succeeded", reason: "completed", published })}\n`;
    const read = (published: unknown) => parseSegment(Buffer.from(final(published)), "s");
    expect(read(id).records).toHaveLength(1);
    for (const bad of [[id], "../x", 42, id.toUpperCase()]) {
      expect(read(bad).records, JSON.stringify(bad)).toHaveLength(0);
      expect(read(bad).damaged[0]).toMatch(/"published" is not a revision id/);
    }
  });
});
