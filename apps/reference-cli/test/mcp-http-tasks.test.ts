import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { TASKS_META } from "@rukh/testkit/mcp";
import { nginxMissing, startNginx } from "@rukh/testkit/nginx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, httpState, mcpRequest, serveHttpProcess } from "./_http.js";

// MCP tasks over Streamable HTTP: two `rukh mcp serve --http` replicas of
// one state directory, each reached directly and through a real nginx. A
// task made at one is read and cancelled at the other; another subject's
// token finds no task; a tasks/* request's Mcp-Name must be its taskId.
const missing = nginxMissing();
if (missing !== undefined) console.warn(`tasks through nginx skipped: ${missing}`);

let op: TestIssuer;
let work: string;
let direct: string[];
let front: string;
let replicas: Awaited<ReturnType<typeof serveHttpProcess>>[] = [];
let lb: { stop(): Promise<void> } | undefined;
let nginxDir: string | undefined;
let alice: string;
let bob: string;
let nap: string;
let root: string;

beforeAll(async () => {
  const ports = [await freePort(), await freePort(), await freePort()];
  const resource = `http://127.0.0.1:${ports[0]}/mcp`;
  op = await startIssuer({ resources: [resource], scopes: "mcp mcp.narrow" });
  ({ work, root } = await httpState(
    "rukh-cli-http-tasks-",
    resource,
    op.issuer,
    0,
    {},
    "optional",
  ));
  direct = [`127.0.0.1:${ports[1]}`, `127.0.0.1:${ports[2]}`];
  replicas = [await serveHttpProcess(root, direct[0]!), await serveHttpProcess(root, direct[1]!)];
  front = resource;
  if (missing === undefined) {
    nginxDir = mkdtempSync(join(tmpdir(), "rukh-nginx-"));
    lb = await startNginx(nginxDir, ports[0]!, direct);
  }
  alice = await op.token("alice-agent", resource, "mcp");
  bob = await op.token("bob-agent", resource, "mcp");
  const list = (await (
    await mcpRequest({ url: `http://${direct[0]}/mcp`, token: alice, method: "tools/list" })
  ).json()) as { result: { tools: { name: string }[] } };
  nap = list.result.tools.find((t) => t.name.includes("nap"))!.name;
}, 60_000);
afterAll(async () => {
  for (const r of replicas) r.child.kill("SIGKILL");
  await lb?.stop();
  await op?.close();
  if (work) removeDir(work);
  if (nginxDir) removeDir(nginxDir);
});

/** One tasks-declaring 2026-07-28 request to `url`, its JSON-RPC answer. */
async function ask(url: string, token: string, method: string, params: Record<string, unknown>) {
  const r = await mcpRequest({ url, token, method, params, meta: TASKS_META });
  return (await r.json()) as { result?: Record<string, unknown>; error?: Record<string, unknown> };
}

const at = (i: number) => `http://${direct[i]}/mcp`;

/** One 2025-11-25 request to `url` (sessionless: its version in MCP-Protocol-Version), its JSON-RPC answer from a JSON or SSE body. */
async function askLegacy(url: string, token: string, method: string, params: object) {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await r.text();
  const data = text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6);
  return JSON.parse(data.length > 0 ? data.at(-1)!.slice(6) : text) as {
    result?: Record<string, unknown>;
    error?: Record<string, unknown>;
  };
}

async function settled(url: string, taskId: string) {
  for (let i = 0; i < 300; i++) {
    const r = await ask(url, alice, "tasks/get", { taskId });
    if (r.result?.status !== "working") return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`task ${taskId} still working`);
}

describe("rukh mcp serve --http: tasks", () => {
  it("a task made at one replica is read at the other, to its result; another subject finds none", async () => {
    const created = await ask(at(0), alice, "tools/call", {
      name: nap,
      arguments: { wait_ms: 800, tag: "t1" },
    });
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.result!.taskId as string;
    // At once, at the other replica.
    expect((await ask(at(1), alice, "tasks/get", { taskId })).result).toMatchObject({
      taskId,
      status: "working",
    });
    expect((await ask(at(1), bob, "tasks/get", { taskId })).error).toMatchObject({
      code: -32602,
      message: "Invalid params: unknown task",
    });
    const done = await settled(at(1), taskId);
    expect(done.result).toMatchObject({
      status: "completed",
      result: { isError: false, structuredContent: { commandResult: { data: { tag: "t1" } } } },
    });
  });

  it("a task made at one replica is cancelled through the other", async () => {
    const created = await ask(at(0), alice, "tools/call", {
      name: nap,
      arguments: { wait_ms: 20_000, tag: "long" },
    });
    const taskId = created.result!.taskId as string;
    const ack = await ask(at(1), alice, "tasks/cancel", { taskId });
    expect(ack.result).toMatchObject({ resultType: "complete" });
    const ended = await settled(at(1), taskId);
    expect(ended.result).toMatchObject({ status: "cancelled" });
  });

  it("2025-11-25's form: a task made at one replica is listed, waited for and read at the other; the 2026 form reads it too", async () => {
    const created = await askLegacy(at(0), alice, "tools/call", {
      name: nap,
      arguments: { wait_ms: 800, tag: "legacy" },
      task: { ttl: 60_000 },
    });
    const task = created.result!.task as { taskId: string; status: string };
    expect(task.status).toBe("working");
    const listed = await askLegacy(at(1), alice, "tasks/list", {});
    expect((listed.result!.tasks as { taskId: string }[]).map((t) => t.taskId)).toContain(
      task.taskId,
    );
    expect(
      ((await askLegacy(at(1), bob, "tasks/list", {})).result!.tasks as { taskId: string }[]).map(
        (t) => t.taskId,
      ),
    ).not.toContain(task.taskId);
    const result = await askLegacy(at(1), alice, "tasks/result", { taskId: task.taskId });
    expect(result.result).toMatchObject({
      isError: false,
      structuredContent: { commandResult: { data: { tag: "legacy" } } },
      _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } },
    });
    expect((await ask(at(0), alice, "tasks/get", { taskId: task.taskId })).result).toMatchObject({
      status: "completed",
    });
  });

  it("refuses a tasks/* request whose Mcp-Name is not its taskId, -32020", async () => {
    const created = await ask(at(0), alice, "tools/call", { name: nap, arguments: { wait_ms: 1 } });
    const taskId = created.result!.taskId as string;
    const r = await fetch(at(1), {
      method: "POST",
      headers: {
        authorization: `Bearer ${alice}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tasks/get",
        "mcp-name": "tsk_other",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tasks/get",
        params: { taskId, _meta: TASKS_META },
      }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: object }).error).toMatchObject({ code: -32020 });
  });

  it.skipIf(missing !== undefined)(
    "through nginx: made, read and cancelled whichever replica each request reaches",
    async () => {
      const created = await ask(front, alice, "tools/call", {
        name: nap,
        arguments: { wait_ms: 20_000, tag: "lb" },
      });
      const taskId = created.result!.taskId as string;
      for (let i = 0; i < 4; i++)
        expect((await ask(front, alice, "tasks/get", { taskId })).result).toMatchObject({
          status: "working",
        });
      expect((await ask(front, alice, "tasks/cancel", { taskId })).result).toMatchObject({
        resultType: "complete",
      });
      const ended = await settled(front, taskId);
      expect(ended.result).toMatchObject({ status: "cancelled" });
    },
  );

  // Last: it kills a replica.
  it("a replica killed with kill -9 mid-task: the survivor answers the task failed, its host lost, once, never run again", async () => {
    const created = await ask(at(0), alice, "tools/call", {
      name: nap,
      arguments: { wait_ms: 30_000, tag: "lost" },
    });
    const taskId = created.result!.taskId as string;
    replicas[0]!.child.kill("SIGKILL");
    await new Promise((r) => replicas[0]!.child.once("exit", r));
    // The survivor's sweep finds the lost host's call (every 2 s) and finalizes it.
    const ended = await settled(at(1), taskId);
    expect(ended.result).toMatchObject({
      status: "failed",
      error: { code: -32603, message: expect.stringContaining("lost") },
    });
    expect((await ask(at(1), alice, "tasks/get", { taskId })).result).toMatchObject({
      status: "failed",
    });
    // One run ended host_lost in the journal (this file's only one): recorded once, never started again.
    const lost = JSON.parse(
      runCli({ args: ["--json", "runs", "list", "--reason", "host_lost"], stateDir: root }).stdout,
    ).result.runs as { outcome?: string }[];
    expect(lost).toEqual([expect.objectContaining({ outcome: "execution_failed" })]);
  });
});
