import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJournal } from "@rukh/core";
import { exposedState, fixturePreset, removeDir } from "@rukh/testkit";
import { runCli, spawnCli } from "@rukh/testkit/cli";
import { MODERN_META, TASKS_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobsDescriptor } from "./_sleeper.js";

// MCP tasks (2026-07-28 tasks extension) over `rukh mcp serve`, with real
// processes: a call that becomes a task answers at once with a task id that
// resolves from then on; tasks/get reads the call's run and kept result from
// the journal, after a cancel, and after the host was killed with kill -9.
const at = { root: "", work: "" };
beforeAll(async () => {
  const program = `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.jobs/nap": async (ctx) => {
  await new Promise((r) => setTimeout(r, ctx.inputs.wait_ms));
  return textResult("slept " + ctx.inputs.wait_ms);
}, "fx.jobs/wait": async () => textResult("waited") } });
`;
  Object.assign(
    at,
    await exposedState({
      prefix: "rukh-cli-tasks-",
      endpointNamespace: "acme-cli-tasks",
      presets: {
        default: fixturePreset({ commands: ["fx.jobs/*"], deadlineMs: 60_000, maxConcurrency: 16 }),
        other: fixturePreset({ commands: ["fx.jobs/*"], deadlineMs: 60_000 }),
      },
      packages: [
        {
          descriptor: jobsDescriptor(),
          programs: { "bin/nap.mjs": program },
        },
      ],
    }),
  );
});
afterAll(() => removeDir(at.work));

type Reply = { id: unknown; result?: Record<string, unknown>; error?: Record<string, unknown> };

/** `rukh mcp serve` on the state directory, its replies read by id as they come. */
function serve(preset = "default", args = ["mcp", "serve", "--preset", preset]) {
  const child: ChildProcess = spawnCli({
    args,
    stateDir: at.root,
  });
  const replies = new Map<unknown, Reply>();
  let out = "";
  child.stdout!.on("data", (c: Buffer) => {
    out += c.toString("utf8");
    for (let nl = out.indexOf("\n"); nl !== -1; nl = out.indexOf("\n")) {
      const m = JSON.parse(out.slice(0, nl)) as Reply;
      if (m.id !== undefined) replies.set(m.id, m);
      out = out.slice(nl + 1);
    }
  });
  child.stdin!.on("error", () => {});
  let next = 0;
  const request = async (method: string, params: object, meta: object = TASKS_META) => {
    const id = ++next;
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })}\n`,
    );
    for (let i = 0; i < 600 && !replies.has(id); i++) await new Promise((r) => setTimeout(r, 50));
    const r = replies.get(id);
    if (r === undefined) throw new Error(`no reply to ${method}`);
    return r;
  };
  const exited = new Promise((r) => child.once("exit", r));
  return { child, request, exited };
}

const names = () => {
  const tools = JSON.parse(runCli({ args: ["--json", "tools", "list"], stateDir: at.root }).stdout)
    .result.tools as { name: string; identity: string }[];
  const of = (id: string) => tools.find((t) => t.identity === id)!.name;
  return { nap: of("fx.jobs/nap"), wait: of("fx.jobs/wait") };
};

/** Polls tasks/get until the task is no longer working (at most 30 s). */
async function settled(s: ReturnType<typeof serve>, taskId: string) {
  for (let i = 0; i < 300; i++) {
    const r = await s.request("tasks/get", { taskId });
    if (r.result?.status !== "working") return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`task ${taskId} still working`);
}

describe("rukh mcp serve: tasks", () => {
  it("advertises the tasks extension, answers a task's create at once, and tasks/get resolves it at once and to its result", async () => {
    const s = serve();
    try {
      const discover = await s.request("server/discover", {});
      expect(discover.result!.capabilities).toMatchObject({
        extensions: { "io.modelcontextprotocol/tasks": {} },
      });
      expect(discover.result!.capabilities).not.toHaveProperty("tasks");
      const { nap } = names();
      const created = await s.request("tools/call", { name: nap, arguments: { wait_ms: 1500 } });
      const task = created.result!;
      expect(task).toMatchObject({ resultType: "task", status: "working", pollIntervalMs: 1000 });
      expect(task.taskId).toMatch(/^tsk_[A-Za-z0-9_-]{24}$/);
      expect(task.createdAt).toBe(task.lastUpdatedAt);
      expect(task).not.toHaveProperty("result");
      expect(Number.isSafeInteger(task.ttlMs)).toBe(true);
      // Durable before it was answered: a tasks/get right after resolves.
      const first = await s.request("tasks/get", { taskId: task.taskId });
      expect(first.result).toMatchObject({
        resultType: "complete",
        taskId: task.taskId,
        status: "working",
      });
      const done = await settled(s, task.taskId as string);
      expect(done.result).toMatchObject({ status: "completed", resultType: "complete" });
      const result = done.result!.result as {
        isError: boolean;
        structuredContent: { outcome: string; commandResult: { text: string } };
      };
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "slept 1500" },
      });
      // Still readable after it ended.
      await new Promise((r) => setTimeout(r, 500));
      expect((await s.request("tasks/get", { taskId: task.taskId })).result!.status).toBe(
        "completed",
      );
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
  });

  it("serves a client that does not declare tasks as before, and refuses it a task-only tool and tasks/* with -32021", async () => {
    const s = serve();
    try {
      const { nap, wait } = names();
      const plain = await s.request(
        "tools/call",
        { name: nap, arguments: { wait_ms: 1 } },
        MODERN_META,
      );
      expect(plain.result).toMatchObject({ resultType: "complete", isError: false });
      const needs = await s.request("tools/call", { name: wait, arguments: {} }, MODERN_META);
      expect(needs.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
      });
      const get = await s.request("tasks/get", { taskId: "tsk_x" }, MODERN_META);
      expect(get.error).toMatchObject({ code: -32021 });
      // A legacy `task` member of a 2026-07-28 call is ignored.
      const legacy = await s.request(
        "tools/call",
        { name: nap, arguments: { wait_ms: 1 }, task: { ttl: 1000 } },
        MODERN_META,
      );
      expect(legacy.result).toMatchObject({ resultType: "complete", isError: false });
      // No tasks/list, no tasks/result.
      expect((await s.request("tasks/list", {})).error).toMatchObject({ code: -32601 });
      expect((await s.request("tasks/result", { taskId: "tsk_x" })).error).toMatchObject({
        code: -32601,
      });
      // An unknown id.
      const unknown = await s.request("tasks/get", { taskId: `tsk_${"A".repeat(24)}` });
      expect(unknown.error).toMatchObject({ code: -32602 });
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
  });

  it("cancels a running task, acknowledges a cancel of an ended one, and shows another binding no task", async () => {
    const s = serve();
    const other = serve("other");
    try {
      const { nap } = names();
      const created = (await s.request("tools/call", { name: nap, arguments: { wait_ms: 20_000 } }))
        .result!;
      const taskId = created.taskId as string;
      // Another binding (preset) of the same journal: the id names nothing it may see.
      const foreign = await other.request("tasks/get", { taskId });
      expect(foreign.error).toMatchObject({
        code: -32602,
        message: "Invalid params: unknown task",
      });
      expect((await other.request("tasks/cancel", { taskId })).error).toMatchObject({
        code: -32602,
      });
      // tasks/update, as the extension shapes it, is acknowledged: no task here waits for input.
      expect(
        (await s.request("tasks/update", { taskId, inputResponses: {} })).result,
      ).toMatchObject({
        resultType: "complete",
      });
      expect(
        (await other.request("tasks/update", { taskId, inputResponses: {} })).error,
      ).toMatchObject({ code: -32602 });
      const ack = await s.request("tasks/cancel", { taskId });
      expect(ack.result).toEqual({
        resultType: "complete",
        _meta: expect.any(Object),
      });
      const ended = await settled(s, taskId);
      expect(ended.result).toMatchObject({ status: "cancelled" });
      expect((await s.request("tasks/cancel", { taskId })).result).toMatchObject({
        resultType: "complete",
      });
    } finally {
      for (const h of [s, other]) {
        h.child.kill("SIGTERM");
        await h.exited;
      }
    }
  });

  it("binds each client configuration's launch apart: a task made under one launch is not found under another's; a revoked launch does not start", async () => {
    // Two clients configured for the same preset: each gets its launch reference.
    const argsOf = (client: string) => {
      const r = runCli({
        args: ["--json", "mcp", "config", "--client", client, "--preset", "default"],
        stateDir: at.root,
      });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(JSON.parse(r.stdout).result.snippet).mcpServers.rukh.args as string[];
    };
    const [desktopArgs, cursorArgs] = [argsOf("claude-desktop"), argsOf("cursor")];
    const [desktop, cursor] = [desktopArgs.at(-1)!, cursorArgs.at(-1)!];
    expect(desktop).toMatch(/^lch_/);
    expect(desktop).not.toBe(cursor);
    const a = serve("default", desktopArgs);
    const b = serve("default", cursorArgs);
    try {
      const listed = (await a.request("tools/list", {})).result!.tools as { name: string }[];
      const nap = listed.find((t) => t.name.includes("nap"))!.name;
      const created = (await a.request("tools/call", { name: nap, arguments: { wait_ms: 1 } }))
        .result!;
      const taskId = created.taskId as string;
      expect((await settled(a, taskId)).result).toMatchObject({ status: "completed" });
      // Another launch, the same preset, user and journal: no such task.
      expect((await b.request("tasks/get", { taskId })).error).toMatchObject({ code: -32602 });
      // The journal says which launch made the call.
      const runs = JSON.parse(
        runCli({ args: ["--json", "runs", "list", "--limit", "1"], stateDir: at.root }).stdout,
      ).result.runs as { invocationId: string }[];
      const shown = runCli({ args: ["runs", "show", runs[0]!.invocationId], stateDir: at.root });
      expect(shown.stdout).toContain(`taskAuthorityRef: launch:${desktop}`);
    } finally {
      a.child.kill("SIGTERM");
      b.child.kill("SIGTERM");
      await Promise.all([a.exited, b.exited]);
    }
    // Revoked: its server refuses to start, saying how to configure the client again.
    expect(
      runCli({ args: ["mcp", "launches", "--revoke", cursor], stateDir: at.root }).status,
    ).toBe(0);
    const refused = runCli({
      args: cursorArgs,
      stateDir: at.root,
      input: "",
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`--launch ${cursor} was revoked at`);
    expect(refused.stderr).toContain("mcp install --client cursor");
    // Issued for one preset, not another; and one never issued.
    const other = runCli({
      args: ["mcp", "serve", "--preset", "other", "--launch", desktop],
      stateDir: at.root,
      input: "",
    });
    expect(other.stderr).toContain(
      `--launch ${desktop} was issued for claude-desktop and endpoint`,
    );
    const unknown = runCli({
      args: ["mcp", "serve", "--preset", "default", "--launch", "lch_AAAAAAAAAAAAAAAA"],
      stateDir: at.root,
      input: "",
    });
    expect(unknown.stderr).toContain("no such launch reference in this state directory");
    // A record larger than any launch record (4 KiB) is not read as one.
    const planted = "lch_BBBBBBBBBBBBBBBB";
    writeFileSync(
      join(at.root, "mcp-launches", `${planted}.json`),
      JSON.stringify({ id: planted, client: "cursor", preset: "default", pad: "x".repeat(5_000) }),
    );
    const oversized = runCli({
      args: ["mcp", "serve", "--preset", "default", "--launch", planted],
      stateDir: at.root,
      input: "",
    });
    expect(oversized.stderr).toContain("no such launch reference in this state directory");
  });

  it("after kill -9 of the host, the restarted host answers the task failed, its host lost, never run again", async () => {
    const s = serve();
    const { nap } = names();
    const created = (await s.request("tools/call", { name: nap, arguments: { wait_ms: 20_000 } }))
      .result!;
    s.child.kill("SIGKILL");
    await s.exited;
    const again = serve();
    try {
      const r = await settled(again, created.taskId as string);
      expect(r.result).toMatchObject({
        status: "failed",
        error: { code: -32603, message: expect.stringContaining("lost") },
      });
      const runs = JSON.parse(
        runCli({ args: ["--json", "runs", "list", "--reason", "host_lost"], stateDir: at.root })
          .stdout,
      ).result.runs as unknown[];
      expect(runs).toHaveLength(1);
    } finally {
      again.child.kill("SIGTERM");
      await again.exited;
    }
  });

  it("100 tasks, the host killed with kill -9 while the last 16 run: after a restart each has one terminal state, one final, one run", async () => {
    const { nap } = names();
    let s = serve();
    const ids: string[] = [];
    // A preset runs at most 16 calls at once, and never queues one: 84 quick tasks in waves of 14…
    for (let wave = 0; wave < 6; wave++) {
      const made = await Promise.all(
        Array.from({ length: 14 }, () =>
          s.request("tools/call", { name: nap, arguments: { wait_ms: 300 } }),
        ),
      );
      for (const m of made) ids.push(m.result!.taskId as string);
      for (const id of ids.slice(-14)) await settled(s, id);
    }
    // …then 16 long ones, running when the host dies.
    const long = await Promise.all(
      Array.from({ length: 16 }, () =>
        s.request("tools/call", { name: nap, arguments: { wait_ms: 30_000 } }),
      ),
    );
    for (const m of long) {
      expect(m.result).toMatchObject({ resultType: "task" });
      ids.push(m.result!.taskId as string);
    }
    expect(new Set(ids).size).toBe(100);
    s.child.kill("SIGKILL");
    await s.exited;
    s = serve();
    try {
      const states: Record<string, number> = {};
      for (const id of ids) {
        const r = await settled(s, id);
        const key = `${r.result!.status}`;
        states[key] = (states[key] ?? 0) + 1;
      }
      expect(states).toEqual({ completed: 84, failed: 16 });
      // The journal: every call of a task has one start, one process, one final.
      const records = (await readJournal(at.root)).records;
      const naps = new Set(
        records
          .filter((r) => r.type === "start" && r.command === "fx.jobs/nap")
          .map((r) => r.invocationId),
      );
      for (const type of ["start", "process", "final"] as const) {
        const of = records.filter((r) => r.type === type && naps.has(r.invocationId));
        expect(new Set(of.map((r) => r.invocationId)).size, type).toBe(of.length);
      }
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
  }, 180_000);
});
