import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { exposedState, fixturePreset, removeDir } from "@rukh/testkit";
import { RUKH_BIN, runCli, spawnCli } from "@rukh/testkit/cli";
import { TASKS_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobsDescriptor } from "./_sleeper.js";

// The 2025-11-25 form of MCP tasks over `rukh mcp serve`, driven by the MCP
// TypeScript SDK 1.x's own task client (which speaks only that form): the
// same task records as the 2026-07-28 extension, in that revision's shapes.
const at = { root: "", work: "" };
beforeAll(async () => {
  const program = `import { CommandFailure, runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.jobs/nap": async (ctx) => {
  await new Promise((r) => setTimeout(r, ctx.inputs.wait_ms));
  return textResult("slept " + ctx.inputs.wait_ms);
}, "fx.jobs/wait": async () => { throw new CommandFailure("nothing came"); },
"fx.jobs/ping": async () => textResult("pong") } });
`;
  Object.assign(
    at,
    await exposedState({
      prefix: "rukh-cli-legacy-tasks-",
      endpointNamespace: "acme-cli-legacy-tasks",
      presets: {
        default: fixturePreset({ commands: ["fx.jobs/*"], deadlineMs: 60_000, maxConcurrency: 8 }),
      },
      packages: [{ descriptor: jobsDescriptor(true), programs: { "bin/nap.mjs": program } }],
    }),
  );
});
/** The servers this file started: each is gone before the state directory is removed. */
const servers: number[] = [];
afterAll(async () => {
  for (let i = 0; i < 100 && servers.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  removeDir(at.work);
});
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const names = () => {
  const tools = JSON.parse(runCli({ args: ["--json", "tools", "list"], stateDir: at.root }).stdout)
    .result.tools as { name: string; identity: string }[];
  const of = (id: string) => tools.find((t) => t.identity === id)!.name;
  return { nap: of("fx.jobs/nap"), wait: of("fx.jobs/wait"), ping: of("fx.jobs/ping") };
};

/** An SDK 1.x client (it initializes 2025-11-25) of `rukh mcp serve` on the state directory. */
async function connect(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: RUKH_BIN,
    args: ["mcp", "serve", "--preset", "default"],
    env: { PATH: process.env.PATH ?? "", RUKH_HOME: at.root },
    stderr: "ignore",
  });
  const client = new Client({ name: "legacy-tasks-test", version: "1.0.0" });
  await client.connect(transport);
  if (transport.pid !== null) servers.push(transport.pid);
  return client;
}

type Message = { type: string; task?: { taskId: string }; result?: unknown; error?: Error };

/** Every message of the SDK's task stream of a call. */
async function stream(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }))
    out.push(m as Message);
  return out;
}

describe("rukh mcp serve: the 2025-11-25 task form", () => {
  it("declares tasks, lists each tool's task support, runs a call as a task to its result, and lists it", async () => {
    const client = await connect();
    try {
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { nap, wait, ping } = names();
      const { tools } = await client.listTools();
      const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
      expect(support).toEqual({ [nap]: "optional", [wait]: "required", [ping]: undefined });

      const messages = await stream(client, nap, { wait_ms: 300 });
      expect(messages.map((m) => m.type)).toEqual(
        expect.arrayContaining(["taskCreated", "result"]),
      );
      const taskId = messages[0]!.task!.taskId;
      expect(taskId).toMatch(/^tsk_/);
      const result = messages.at(-1)!.result as { structuredContent: object; _meta: object };
      expect(result.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "slept 300" },
      });
      expect(result._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId } });
      const task = await client.experimental.tasks.getTask(taskId);
      expect(task).toMatchObject({ taskId, status: "completed", pollInterval: 1000 });
      expect(task.ttl).toBeGreaterThan(0);
      const listed = await client.experimental.tasks.listTasks();
      expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
      // A cursor that names no task of this list.
      await expect(client.experimental.tasks.listTasks("tsk_nope")).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await client.close();
    }
  });

  it("a command's own error is a failed task whose result still says it; a task-only tool called plainly is -32600", async () => {
    const client = await connect();
    try {
      const { wait } = names();
      // The SDK asks for a task only for a tool whose listed support it has seen.
      await client.listTools();
      const messages = await stream(client, wait, {});
      expect(messages[0]!.type).toBe("taskCreated");
      expect(messages.at(-1)!.type).toBe("error");
      const taskId = messages[0]!.task!.taskId;
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: "failed" });
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        outcome: "command_failed",
        reason: "command_reported",
      });
      await expect(
        client.request(
          { method: "tools/call", params: { name: wait, arguments: {} } },
          CallToolResultSchema,
        ),
      ).rejects.toMatchObject({ code: -32600 });
    } finally {
      await client.close();
    }
  });

  it("tasks/cancel answers the task cancelled; a second cancel is -32602; its result is the cancelled call's", async () => {
    const client = await connect();
    try {
      const { nap, ping } = names();
      const created = (await client.request(
        {
          method: "tools/call",
          params: { name: nap, arguments: { wait_ms: 30_000 }, task: { ttl: 60_000 } },
        },
        // biome-ignore lint/suspicious/noExplicitAny: the SDK's schema of a create answer is not exported
        CallToolResultSchema.passthrough() as any,
      )) as { task: { taskId: string; status: string; ttl: number } };
      expect(created.task.status).toBe("working");
      const taskId = created.task.taskId;
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expect(cancelled).toMatchObject({ taskId, status: "cancelled" });
      await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({
        code: -32602,
      });
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({
        outcome: "cancelled",
        reason: "client_cancel",
      });
      // A tool that never runs as a task, asked to: -32601, as that revision says.
      await expect(
        client.request(
          { method: "tools/call", params: { name: ping, arguments: {}, task: {} } },
          CallToolResultSchema,
        ),
      ).rejects.toMatchObject({ code: -32601 });
    } finally {
      await client.close();
    }
  });

  it("a 2025-06-18 client has no tasks: its `task` member is ignored and tasks/* is -32601; a 2026-07-28 request reads a task made in the 2025-11-25 form", async () => {
    const { nap } = names();
    const child = spawnCli({ args: ["mcp", "serve", "--preset", "default"], stateDir: at.root });
    if (child.pid !== undefined) servers.push(child.pid);
    const replies: Record<string, unknown>[] = [];
    let buf = "";
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString("utf8");
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        replies.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    });
    const send = (m: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
    const reply = async (id: number) => {
      for (let i = 0; i < 400; i++) {
        const r = replies.find((m) => m.id === id);
        if (r !== undefined)
          return r as { result?: Record<string, unknown>; error?: { code: number } };
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error(`no reply ${id}`);
    };
    try {
      send({
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      });
      expect((await reply(1)).result).not.toHaveProperty("capabilities.tasks");
      send({ method: "notifications/initialized" });
      send({
        id: 2,
        method: "tools/call",
        params: { name: nap, arguments: { wait_ms: 1 }, task: {} },
      });
      expect((await reply(2)).result).toMatchObject({ isError: false });
      send({ id: 3, method: "tasks/list", params: {} });
      expect((await reply(3)).error).toMatchObject({ code: -32601 });

      const client = await connect();
      const created = (await client.request(
        { method: "tools/call", params: { name: nap, arguments: { wait_ms: 1 }, task: {} } },
        // biome-ignore lint/suspicious/noExplicitAny: the SDK's schema of a create answer is not exported
        CallToolResultSchema.passthrough() as any,
      )) as { task: { taskId: string } };
      await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      await client.close();
      send({
        id: 4,
        method: "tasks/get",
        params: { taskId: created.task.taskId, _meta: TASKS_META },
      });
      expect((await reply(4)).result).toMatchObject({
        taskId: created.task.taskId,
        status: "completed",
        resultType: "complete",
        result: { isError: false },
      });
    } finally {
      child.kill("SIGTERM");
    }
  });
});
