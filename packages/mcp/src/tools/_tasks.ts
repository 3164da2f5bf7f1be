// MCP tasks (the 2026-07-28 tasks extension) on the journal: a call that
// becomes a task answers at once with a task id, recorded beside the journal
// once the call's start is on disk; `tasks/get` reads what the task is from
// the call's run in the journal and its kept result, on any host of that
// journal; `tasks/cancel` cancels a task running in this process.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  type BoundInvocationCore,
  findRun,
  findTask,
  type InvocationOutcome,
  newTaskId,
  outcomeEnvelope,
  type RunSummary,
  readKeptResult,
  recordTask,
  resultLimitsOf,
  type TaskRecord,
} from "@rukh/core";
import type { JsonObject } from "@rukh/json";
import type { OwnerConfig, StateDirectory } from "@rukh/profile";
import { JSONRPC_ERROR_CODES, RpcError } from "../protocol/index.js";

/** How often a client is asked to poll a working task. */
export const TASK_POLL_INTERVAL_MS = 1_000;

/** The tasks running in this process, by id: what `tasks/cancel` aborts, and where a mark for each would be. */
const running = new Map<string, { readonly cancel: AbortController; readonly mark: string }>();

/** How often a process running tasks looks for cancellation marks other replicas left for them. */
export const TASK_MARK_POLL_MS = 200;
let polling: NodeJS.Timeout | undefined;

/**
 * Where a cancellation of task `taskId` is left for the replica running it:
 * an empty file in the journal directory the replicas share, named by a
 * digest of the id (the folder's names give no id away).
 */
const markOf = (journalRoot: string, taskId: string) =>
  join(
    journalRoot,
    "journal",
    "cancels",
    `task-${createHash("sha256").update(taskId).digest("hex")}`,
  );

/** Cancels each task of this process a mark was left for; stops when none runs. */
function pollMarks(): void {
  if (running.size === 0) {
    clearInterval(polling);
    polling = undefined;
    return;
  }
  for (const { cancel, mark } of running.values())
    if (existsSync(mark)) {
      cancel.abort();
      rmSync(mark, { force: true });
    }
}

/** A task's wire fields, without `resultType` (its answer adds it). */
export type TaskBody = Record<string, unknown>;

/** How long a task can be read: as long as its result is kept. */
const ttlOf = (config: OwnerConfig) => resultLimitsOf(config).maxAgeMs;

/**
 * Starts `invoke` as a task: resolves once its start and its task record are
 * on disk, with the task's create body — or, for a call refused before it
 * started, with its outcome (answered as a plain call).
 */
export async function startTask(
  o: {
    readonly journalRoot: string;
    readonly core: BoundInvocationCore;
    readonly config: OwnerConfig;
  },
  invoke: (
    signal: AbortSignal,
    onStart: (invocationId: string) => void,
  ) => Promise<InvocationOutcome>,
): Promise<{ created: TaskBody } | { outcome: InvocationOutcome }> {
  const taskId = newTaskId();
  const cancel = new AbortController();
  let record: TaskRecord | Error | undefined;
  let started!: () => void;
  const onStart = new Promise<void>((r) => {
    started = r;
  });
  const work = invoke(cancel.signal, (invocationId) => {
    try {
      record = recordTask(o.journalRoot, taskId, invocationId, o.core.binding);
    } catch (e) {
      record = e as Error;
    }
    started();
  });
  const first = await Promise.race([onStart.then(() => "started" as const), work]);
  if (first !== "started") return { outcome: first };
  if (record instanceof Error || record === undefined) {
    // No record, no task to answer with: the call is not left running unseen.
    cancel.abort();
    await work;
    throw new RpcError(
      JSONRPC_ERROR_CODES.internalError,
      "the task could not be recorded (is the disk full?); its call was cancelled",
    );
  }
  const mark = markOf(o.journalRoot, taskId);
  running.set(taskId, { cancel, mark });
  polling ??= setInterval(pollMarks, TASK_MARK_POLL_MS);
  polling.unref();
  work
    .finally(() => {
      running.delete(taskId);
      rmSync(mark, { force: true });
    })
    .catch(() => {});
  return {
    created: {
      taskId,
      status: "working",
      createdAt: record.createdAt,
      lastUpdatedAt: record.createdAt,
      ttlMs: ttlOf(o.config),
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
    },
  };
}

/** What `tasks/*` of one binding read and act on. */
export interface TaskContext {
  readonly state: StateDirectory;
  readonly core: BoundInvocationCore;
  /** The active revision's owner configuration (for the task's time to live), if any. */
  config(): Promise<OwnerConfig | undefined>;
  /** The `CallToolResult` a call with outcome `o` answers with. */
  toolResult(o: InvocationOutcome): Record<string, unknown>;
}

/** The task `params.taskId` names, as this binding may see it; `-32602` when it may not. */
export async function taskOf(
  ctx: TaskContext,
  params: JsonObject | undefined,
): Promise<{ task: TaskRecord; journalRoot: string }> {
  const taskId = params?.taskId;
  if (typeof taskId !== "string")
    throw new RpcError(
      JSONRPC_ERROR_CODES.invalidParams,
      "Invalid params: taskId must be a string",
    );
  const { journalRoot } = await ctx.state.places();
  const task = await findTask(journalRoot, taskId, ctx.core.binding);
  // Another binding's task is answered as one that does not exist.
  if (task === undefined)
    throw new RpcError(JSONRPC_ERROR_CODES.invalidParams, "Invalid params: unknown task");
  return { task, journalRoot };
}

/**
 * What a task is now: its 2026-07-28 body (for `tasks/get`), and the
 * `CallToolResult` its call answered once it ended with one (a cancelled
 * call's too, which that body leaves out).
 */
export interface TaskState {
  readonly body: TaskBody;
  readonly toolResult?: Record<string, unknown>;
}

/** The task states that are final. */
export const TERMINAL: ReadonlySet<unknown> = new Set(["completed", "failed", "cancelled"]);

/** Task `task` as its call's run and kept result say it is now. */
export async function stateOf(
  ctx: TaskContext,
  task: TaskRecord,
  journalRoot: string,
): Promise<TaskState> {
  const config = await ctx.config();
  const run = await findRun(journalRoot, task.invocationId);
  const base = {
    taskId: task.taskId,
    createdAt: task.createdAt,
    lastUpdatedAt: run?.endedAt ?? task.createdAt,
    ttlMs: config === undefined ? null : ttlOf(config),
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
  if (run?.outcome === undefined || run.reason === undefined)
    return { body: { ...base, status: "working" } };
  if (run.outcome === "cancelled")
    return {
      body: { ...base, status: "cancelled", statusMessage: `cancelled (${run.reason})` },
      toolResult: ctx.toolResult(outcomeOf(run, undefined)),
    };
  // A call that failed to execute (its host lost, its process broke the
  // channel's protocol or crashed, its result invalid) is a failed task; a
  // command that reported its own error completes with that tool error.
  if (run.outcome === "execution_failed")
    return {
      body: failed(
        base,
        run.reason === "host_lost"
          ? "the host running the call was lost; its outcome is unknown, and it is not run again"
          : `the call failed to execute (${run.reason})`,
        outcomeEnvelope(outcomeOf(run, undefined)),
      ),
    };
  const limits = config === undefined ? undefined : resultLimitsOf(config);
  const kept = await readKeptResult(journalRoot, task.invocationId, limits);
  if (run.outcome === "succeeded" && kept?.result === undefined)
    return { body: failed(base, "the call succeeded, but its result is no longer kept") };
  const toolResult = ctx.toolResult(outcomeOf(run, kept?.result));
  return { body: { ...base, status: "completed", result: toolResult }, toolResult };
}

/** `tasks/get`: the task as its call's run and kept result say it is now. */
export async function getTask(ctx: TaskContext, params: JsonObject | undefined): Promise<TaskBody> {
  const { task, journalRoot } = await taskOf(ctx, params);
  return (await stateOf(ctx, task, journalRoot)).body;
}

/**
 * `tasks/cancel`: cancels the task where it runs — here, or through a mark
 * the replica running it finds within {@link TASK_MARK_POLL_MS}; an ended
 * task is left as it ended.
 */
export async function cancelTask(ctx: TaskContext, params: JsonObject | undefined): Promise<void> {
  const { task, journalRoot } = await taskOf(ctx, params);
  const here = running.get(task.taskId);
  if (here !== undefined) {
    here.cancel.abort();
    return;
  }
  const run = await findRun(journalRoot, task.invocationId);
  if (run?.outcome !== undefined) return;
  const mark = markOf(journalRoot, task.taskId);
  mkdirSync(dirname(mark), { recursive: true, mode: 0o700 });
  writeFileSync(mark, "", { mode: 0o600 });
}

/** `tasks/update`: no task of this host waits for input, so an update is acknowledged and ignored. */
export async function updateTask(ctx: TaskContext, params: JsonObject | undefined): Promise<void> {
  await taskOf(ctx, params);
}

/** A failed task: its error says why, with the call's outcome envelope as its data when it ended. */
function failed(base: TaskBody, message: string, envelope?: object): TaskBody {
  return {
    ...base,
    status: "failed",
    statusMessage: message,
    error: {
      code: JSONRPC_ERROR_CODES.internalError,
      message,
      ...(envelope !== undefined && { data: envelope }),
    },
  };
}

/** A finished run, as the outcome its call answered with (its kept result in it). */
function outcomeOf(run: RunSummary, result: InvocationOutcome["commandResult"]): InvocationOutcome {
  return {
    invocationId: run.invocationId,
    outcome: run.outcome!,
    reason: run.reason!,
    ...(run.revisionId !== undefined && { revisionId: run.revisionId }),
    ...(result !== undefined && { commandResult: result }),
    diagnostics: { stdoutBytes: 0, stderrBytes: 0, droppedBytes: 0 },
  };
}
