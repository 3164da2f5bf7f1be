import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readJournal } from "@rukh/core";
import { fillFileSystem, fixturePreset, removeDir, tempDir } from "@rukh/testkit";
import { mainAndHiddenState } from "@rukh/testkit/extension";
import { MODERN_META, TASKS_META } from "@rukh/testkit/mcp";
import { afterAll, describe, expect, it } from "vitest";
import {
  COMMANDS,
  onJsonLines,
  ownerConfig,
  PROGRAMS,
  SERVE,
  toolNameOf,
  type Wire,
} from "../_helpers.js";

// A full disk, for real: the state directory on a small tmpfs (root only),
// filled up while a host serves it. A first list still lists (its cursor
// key cannot be written). Whether a call's start or its task record is what
// cannot be written, the client gets no task it could never read: a plain
// answer saying why, or -32603; nothing is left running, no task record
// half written.
const mountPoint = tempDir("rukh-mcp-full-");
const mounted =
  process.platform === "linux" &&
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=32m", "tmpfs", mountPoint]).status === 0;
if (!mounted)
  console.warn(
    `full-disk cases skipped: ${process.getuid?.() === 0 ? "mount -t tmpfs was refused" : "mounting a tmpfs needs root"}`,
  );
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint]);
  removeDir(mountPoint);
});

/** The MCP suites' state on the tmpfs, in `name`, with `fx.main/slow` optional as a task. */
async function stateOnTmpfs(name: string) {
  const work = join(mountPoint, name);
  mkdirSync(work);
  return mainAndHiddenState({
    prefix: "unused",
    at: work,
    config: ownerConfig({
      presets: {
        default: {
          ...fixturePreset({ commands: ["fx.main/*"], deadlineMs: 20_000 }),
          tasks: { "fx.main/slow": "optional" },
        },
      },
    }),
    commands: COMMANDS,
    programs: PROGRAMS,
  });
}

/** `serve.mjs` on `root`, its replies by id. */
function serveOn(root: string) {
  const child: ChildProcess = spawn(process.execPath, [SERVE, "default"], {
    env: { PATH: process.env.PATH ?? "", RUKH_HOME: root },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const replies = new Map<number, Wire>();
  onJsonLines(child.stdout!, (m) => replies.set(m.id, m));
  const exited = new Promise((r) => child.once("exit", r));
  const request = async (id: number, method: string, params: object) => {
    child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    for (let i = 0; i < 400 && !replies.has(id); i++) await new Promise((r) => setTimeout(r, 50));
    return replies.get(id);
  };
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
  };
  return { request, stop };
}

describe.skipIf(!mounted)("a host on a full disk", () => {
  it("lists its tools the first time, though the cursor key cannot be written", async () => {
    const s = await stateOnTmpfs("list");
    expect(existsSync(join(s.root, "keys", "cursor.key"))).toBe(false);
    const filler = fillFileSystem(mountPoint);
    const host = serveOn(s.root);
    try {
      const list = await host.request(1, "tools/list", { _meta: MODERN_META });
      expect(list.error).toBeUndefined();
      expect(list.result.tools.length).toBeGreaterThan(0);
      expect(existsSync(join(s.root, "keys", "cursor.key"))).toBe(false);
    } finally {
      await host.stop();
      rmSync(filler);
    }
  }, 60_000);

  it("makes no task half: the call is answered plainly or -32603, nothing keeps running, no task record is left", async () => {
    const s = await stateOnTmpfs("tasks");
    const name = await toolNameOf(s.state, "fx.main/slow");
    const { request, stop } = serveOn(s.root);
    try {
      // One task while there is room: the journal and its folders exist.
      const first = await request(1, "tools/call", {
        name,
        arguments: { wait_ms: 1 },
        _meta: TASKS_META,
      });
      expect(first.result).toMatchObject({ resultType: "task" });
      // Its result kept before the disk fills (a loaded runner may not have finished it yet).
      let done: Wire;
      for (let i = 100; ; i++) {
        done = await request(i, "tasks/get", { taskId: first.result.taskId, _meta: TASKS_META });
        if (done.result?.status !== "working" || i > 300) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(done.result).toMatchObject({ status: "completed" });
      const filler = fillFileSystem(mountPoint);
      const second = await request(2, "tools/call", {
        name,
        arguments: { wait_ms: 10_000 },
        _meta: TASKS_META,
      });
      expect(second, "the host answered").toBeDefined();
      if (second.error !== undefined)
        expect(second.error).toMatchObject({
          code: -32603,
          message: expect.stringContaining("could not be recorded"),
        });
      else
        expect(second.result).toMatchObject({
          resultType: "complete",
          isError: true,
          structuredContent: { outcome: "execution_failed" },
        });
      rmSync(filler);
      // Still served, with room again; and a tasks/get of the first task reads it.
      const again = await request(3, "tasks/get", {
        taskId: first.result.taskId,
        _meta: TASKS_META,
      });
      expect(again.result).toMatchObject({ status: "completed" });
      const list = await request(4, "tools/list", { _meta: MODERN_META });
      expect(list.result.tools.length).toBeGreaterThan(0);
      // Every call that started has its final: none is left running.
      const journal = (await readJournal(s.root)).records;
      const starts = journal.filter((r) => r.type === "start").map((r) => r.invocationId);
      const finals = new Set(journal.filter((r) => r.type === "final").map((r) => r.invocationId));
      expect(starts.filter((id) => !finals.has(id))).toEqual([]);
      // Only the first task's record, no temporary file beside it.
      const tasks = join(s.root, "journal", "tasks");
      expect(existsSync(tasks) ? readdirSync(tasks).length : 0).toBe(1);
    } finally {
      await stop();
    }
  }, 60_000);
});
