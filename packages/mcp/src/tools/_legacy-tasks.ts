// The 2025-11-25 form of MCP tasks, on the same task records as the
// 2026-07-28 extension (see _tasks.ts): a `tools/call` with `params.task`
// answers `{ task }`; `tasks/get` answers the task alone; `tasks/result`
// waits for its end and answers what the call would have; `tasks/list`
// lists the binding's own tasks; `tasks/cancel` answers the task once it is
// cancelled. That revision calls a tool error a `failed` task (the
// extension, a `completed` one); `tasks/result` gives its result either way.

import { setTimeout as sleep } from "node:timers/promises";
import { listTasks } from "@rukh/core";
import type { JsonObject, JsonValue } from "@rukh/json";
import { JSONRPC_ERROR_CODES, RpcError } from "../protocol/index.js";
import {
  cancelTask,
  stateOf,
  type TaskBody,
  type TaskContext,
  type TaskState,
  TERMINAL,
  taskOf,
} from "./_tasks.js";

/** Where a `tasks/result` answer names its task. */
const RELATED_TASK = "io.modelcontextprotocol/related-task";
/** How often a waiting `tasks/result` or `tasks/cancel` reads the journal again. */
const WAIT_POLL_MS = 100;
/** Tasks on one `tasks/list` page. */
const LIST_PAGE = 100;
/** How long `tasks/cancel` waits for the cancelled call's final record before it answers. */
const CANCEL_WAIT_MS = 30_000;

/** A task in the 2025-11-25 form: `ttl` and `pollInterval`, a tool error `failed`, no result in it. */
export function legacyTask(body: TaskBody, toolResult?: Record<string, unknown>): TaskBody {
  const toolError = body.status === "completed" && toolResult?.isError === true;
  return {
    taskId: body.taskId,
    status: toolError ? "failed" : body.status,
    ...(toolError
      ? { statusMessage: "the command ended with an error; tasks/result has it" }
      : body.statusMessage !== undefined && { statusMessage: body.statusMessage }),
    createdAt: body.createdAt,
    lastUpdatedAt: body.lastUpdatedAt,
    ttl: body.ttlMs,
    pollInterval: body.pollIntervalMs,
  };
}

/** Reads `taskId`'s state until it is final; `signal` stops the wait (the request was cancelled). */
async function settled(
  ctx: TaskContext,
  params: JsonObject | undefined,
  signal: AbortSignal,
  limitMs = Number.POSITIVE_INFINITY,
): Promise<TaskState> {
  const { task, journalRoot } = await taskOf(ctx, params);
  const until = Date.now() + limitMs;
  for (;;) {
    const state = await stateOf(ctx, task, journalRoot);
    if (TERMINAL.has(state.body.status) || Date.now() >= until) return state;
    await sleep(WAIT_POLL_MS, undefined, { signal });
  }
}

/** `tasks/get` of 2025-11-25. */
export async function legacyGet(ctx: TaskContext, params: JsonObject | undefined): Promise<object> {
  const { task, journalRoot } = await taskOf(ctx, params);
  const state = await stateOf(ctx, task, journalRoot);
  return legacyTask(state.body, state.toolResult);
}

/**
 * `tasks/result`: once the task has ended, what its call would have
 * answered — its `CallToolResult` (a tool error and a cancelled call's
 * too), or the error of a call that failed to execute.
 */
export async function legacyResult(
  ctx: TaskContext,
  params: JsonObject | undefined,
  signal: AbortSignal,
): Promise<object> {
  const state = await settled(ctx, params, signal);
  const taskId = state.body.taskId;
  if (state.toolResult === undefined) {
    const error = state.body.error as { code: number; message: string; data?: JsonValue };
    throw new RpcError(error.code, error.message, error.data);
  }
  const meta = (state.toolResult._meta ?? {}) as object;
  return { ...state.toolResult, _meta: { ...meta, [RELATED_TASK]: { taskId } } };
}

/**
 * `tasks/cancel`: cancels the task and answers it once its call's final is
 * recorded — `cancelled`, as that revision asks. A task that had already
 * ended, or ended before the cancel reached it, is `-32602`.
 */
export async function legacyCancel(
  ctx: TaskContext,
  params: JsonObject | undefined,
  signal: AbortSignal,
): Promise<object> {
  const { task, journalRoot } = await taskOf(ctx, params);
  const before = await stateOf(ctx, task, journalRoot);
  if (TERMINAL.has(before.body.status)) throw ended(before);
  await cancelTask(ctx, params);
  const after = await settled(ctx, params, signal, CANCEL_WAIT_MS);
  if (after.body.status !== "cancelled" && TERMINAL.has(after.body.status)) throw ended(after);
  return legacyTask(after.body, after.toolResult);
}

const ended = (s: TaskState) =>
  new RpcError(
    JSONRPC_ERROR_CODES.invalidParams,
    `Invalid params: the task has already ended (${legacyTask(s.body, s.toolResult).status}); it cannot be cancelled`,
  );

/** `tasks/list`: this binding's tasks, oldest first, a page at a time; the cursor is the last id of the page before. */
export async function legacyList(
  ctx: TaskContext,
  params: JsonObject | undefined,
): Promise<object> {
  const cursor = params?.cursor;
  if (cursor !== undefined && typeof cursor !== "string")
    throw new RpcError(
      JSONRPC_ERROR_CODES.invalidParams,
      "Invalid params: cursor must be a string",
    );
  const { journalRoot } = await ctx.state.places();
  const all = await listTasks(journalRoot, ctx.core.binding);
  let start = 0;
  if (cursor !== undefined) {
    const at = all.findIndex((t) => t.taskId === cursor);
    if (at === -1)
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidParams,
        "Invalid params: cursor names no task of this list",
      );
    start = at + 1;
  }
  const page = all.slice(start, start + LIST_PAGE);
  const tasks: object[] = [];
  for (const t of page) {
    const state = await stateOf(ctx, t, journalRoot);
    tasks.push(legacyTask(state.body, state.toolResult));
  }
  const last = page.at(-1);
  return {
    tasks,
    ...(start + LIST_PAGE < all.length && last !== undefined && { nextCursor: last.taskId }),
  };
}
