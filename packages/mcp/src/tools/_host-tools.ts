// The host's tools: the list a preset sees, page by page, and a call mapped
// onto the invocation core, with the projection of the active revision read
// once per revision and the four newest kept.

// Types only: the SDK's wire types keep our hand-built results honest (R09).
import type { CallToolResult, ListToolsResult, Tool } from "@modelcontextprotocol/server";
import {
  type BoundInvocationCore,
  type InvocationOutcome,
  type InvocationProgress,
  outcomeDiagnostic,
  outcomeEnvelope,
  strictUnavailable,
  throttleProgress,
} from "@rukh/core";
import type { JsonObject } from "@rukh/json";
import {
  effectiveTaskSupport,
  listedTool,
  listTools,
  type McpTool,
  type OwnerConfig,
  ProfileError,
  presetNamed,
  resolveTool,
  type StateDirectory,
  type TaskPreset,
} from "@rukh/profile";
import type { HostSettings } from "../hosting/index.js";
import {
  completeFor,
  type Era,
  type HostTools,
  isObject,
  JSONRPC_ERROR_CODES,
  RpcError,
  type TaskForm,
  tasksRequired,
} from "../protocol/index.js";
import { legacyCancel, legacyGet, legacyList, legacyResult, legacyTask } from "./_legacy-tasks.js";
import { cancelTask, getTask, startTask, type TaskContext, updateTask } from "./_tasks.js";
import { presetMissing, ToolViews } from "./_views.js";

/** What the tools of one binding are made with. */
export interface ToolsContext {
  readonly state: StateDirectory;
  /** The core seen through the binding every call runs under. */
  readonly core: BoundInvocationCore;
  /** The host's settings: its endpoint's naming, deadline, development links and limits. */
  readonly settings: HostSettings;
  /** Aborted by the owner's shutdown: running calls end `owner_cancel`. */
  readonly ownerSignal: AbortSignal;
  /** Aborted when the client's transport is lost: running calls end `transport_lost` (stdio; over HTTP a request's lost connection is its cancellation). */
  readonly transportSignal?: AbortSignal;
  /** Queues a notification to the client. */
  notify(message: object): void;
  /** The preset's views, when several hosts' requests share them (default: the tools' own). */
  readonly views?: ToolViews;
  /** Told when a call is resolved to its command and about to run (over HTTP, a streamed answer then opens). */
  runs?(): void;
}

/** One answer for every name that cannot be called, so none reveals more than another. */
const unknownTool = (): RpcError => new RpcError(JSONRPC_ERROR_CODES.invalidParams, "Unknown tool");

/** Shortest time between two progress notifications of one call. */
const PROGRESS_INTERVAL_MS = 100;

/** The tools of the host `ctx` describes. */
export function hostTools(ctx: ToolsContext): HostTools {
  const { state, core, settings } = ctx;
  const { binding } = core;
  const views = ctx.views ?? new ToolViews(state, binding.preset, settings.endpoint);
  const current = () => views.current();
  const complete = (era: Era, result: Record<string, unknown>) =>
    completeFor(era, result, settings.serverInfo);

  async function list(era: Era, params: JsonObject | undefined, form: TaskForm): Promise<object> {
    const cursor = params?.cursor;
    if (cursor !== undefined && typeof cursor !== "string")
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidParams,
        "Invalid params: cursor must be a string",
      );
    const now = await current();
    const hints = era === "modern" ? { ttlMs: 0, cacheScope: "private" } : {};
    if (now === null) {
      if (cursor !== undefined)
        throw new RpcError(JSONRPC_ERROR_CODES.invalidParams, "Invalid params: stale cursor");
      return complete(era, { tools: [], ...hints });
    }
    const cursorKey = await views.cursorKey();
    const preset = presetNamed(now.projection.config, binding.preset);
    await strictAvailable(now.projection.config, preset, binding.preset, state);
    try {
      const page = listTools(now.projection, {
        preset: binding.preset,
        devAllowed: views.devExtensions,
        cursorKey,
        responseMaxBytes: settings.limits.responseMaxBytes,
        ...(cursor !== undefined && { cursor }),
      });
      const result: ListToolsResult = {
        // Profile built both schemas as closed JSON Schema objects (checked at publication).
        tools: page.tools.map((t) =>
          withTaskSupport(listedTool(now.projection, binding.preset, t) as Tool, t, preset, form),
        ),
        ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
      };
      return complete(era, { ...result, ...hints });
    } catch (e) {
      if (e instanceof ProfileError && (e.code === "invalid_cursor" || e.code === "stale_cursor"))
        throw new RpcError(JSONRPC_ERROR_CODES.invalidParams, `Invalid params: ${e.message}`);
      if (e instanceof ProfileError && e.code === "unknown_preset") throw presetMissing();
      // A limit tighter than one tool (an endpoint's publication refuses such a limit).
      if (e instanceof ProfileError && e.code === "tool_too_large")
        throw new RpcError(JSONRPC_ERROR_CODES.internalError, e.message);
      throw e;
    }
  }

  async function call(
    era: Era,
    params: JsonObject | undefined,
    signal: AbortSignal,
    form: TaskForm,
  ): Promise<object> {
    const name = params?.name;
    const args = params?.arguments;
    if (typeof name !== "string")
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidParams,
        "Invalid params: name must be a string",
      );
    const now = await current();
    if (now === null || !now.visible.has(name)) throw unknownTool();
    const tool = resolveTool(now.projection, name);
    if (tool === undefined) throw unknownTool();
    const preset = presetNamed(now.projection.config, binding.preset);
    if (preset === undefined) throw presetMissing();
    const support = effectiveTaskSupport(preset, tool.identity, tool.task);
    const asTask = runsAsTask(era, form, params, support);
    // Resolved here, under this host's naming, and pinned to the revision it
    // was resolved in: a newer revision makes the call fail as unknown.
    const request = {
      command: { identity: tool.identity },
      // The core decodes them against the command it admits: the name is resolved once, here.
      supplied: { json: args },
      surface: "mcp" as const,
      revisionId: now.projection.revisionId,
      ownerSignal: ctx.ownerSignal,
      ...(settings.endpoint.deadlineMs !== undefined && {
        deadlineMs: settings.endpoint.deadlineMs,
      }),
    };
    if (asTask) {
      // A task outlives its request and its client's connection: only tasks/cancel and the owner end it early.
      const { journalRoot } = await state.places();
      const started = await startTask(
        { journalRoot, core, config: now.projection.config },
        (taskSignal, onStart) => core.invoke({ ...request, signal: taskSignal, onStart }),
      );
      if ("outcome" in started) return answer(era, started.outcome);
      if (form === "legacy") return { task: legacyTask(started.created) };
      return { ...complete(era, started.created), resultType: "task" };
    }
    const progress = progressReporter(params, ctx.notify);
    ctx.runs?.();
    const outcome = await core.invoke({
      ...request,
      signal,
      ...(ctx.transportSignal !== undefined && { transportSignal: ctx.transportSignal }),
      ...(progress !== undefined && { onProgress: progress.report }),
    });
    // Nothing about a call follows its result.
    progress?.end();
    return answer(era, outcome);
  }

  /** A call's answer: its tool result, or unknown tool for a name that stopped naming one. */
  function answer(era: Era, outcome: InvocationOutcome): object {
    if (
      outcome.outcome === "rejected" &&
      (outcome.reason === "not_found" || outcome.reason === "obsolete_revision")
    )
      throw unknownTool();
    return toolResult(era, outcome);
  }

  const taskContext: TaskContext = {
    state,
    core,
    config: async () => (await current())?.projection.config,
    toolResult: callToolResult,
  };

  async function task(
    form: Exclude<TaskForm, "none">,
    method: string,
    params: JsonObject | undefined,
    signal: AbortSignal,
  ): Promise<object> {
    if (form === "legacy") return legacyTaskMethod(taskContext, method, params, signal);
    if (method === "tasks/get") return complete("modern", await getTask(taskContext, params));
    if (method === "tasks/cancel") await cancelTask(taskContext, params);
    else await updateTask(taskContext, params);
    return complete("modern", {});
  }

  function toolResult(era: Era, o: InvocationOutcome): object {
    return complete(era, callToolResult(o));
  }

  return { list, call, task };
}

/** A listed tool with, for a 2025-11-25 client, its task support under the preset (that era learns it from the list). */
function withTaskSupport(
  listed: Tool,
  tool: Pick<McpTool, "identity" | "task">,
  preset: TaskPreset | undefined,
  form: TaskForm,
): Tool {
  const support =
    form === "legacy" && preset !== undefined
      ? effectiveTaskSupport(preset, tool.identity, tool.task)
      : "forbidden";
  return support === "forbidden" ? listed : { ...listed, execution: { taskSupport: support } };
}

/**
 * Refuses a list of a strict preset's tools where strict confinement is
 * unavailable: every call of them would be refused (`enforcement_unavailable`),
 * so an explicit error takes the place of a list that hides it.
 */
async function strictAvailable(
  config: OwnerConfig,
  preset: TaskPreset | undefined,
  name: string,
  state: StateDirectory,
): Promise<void> {
  if (preset?.enforcement !== "strict") return;
  const why = await strictUnavailable(config.sandbox?.program, (await state.places()).journalRoot);
  if (why !== null)
    throw new RpcError(
      JSONRPC_ERROR_CODES.profileUnavailable,
      `the tools of preset ${name} run strict, and strict confinement is unavailable here: ${why}; no call of them could run (the owner's doctor shows the checks)`,
      { reason: "enforcement_unavailable" },
    );
}

/**
 * Whether a call runs as a task: the tool's task support under the preset,
 * and the form of tasks the request takes (the extension's: whenever the
 * tool allows one; 2025-11-25's: when the call asks with `params.task`).
 * Throws for a call that cannot run as asked.
 */
function runsAsTask(
  era: Era,
  form: TaskForm,
  params: JsonObject | undefined,
  support: "forbidden" | "optional" | "required",
): boolean {
  // A 2025-11-25 call asks for a task with `params.task`; elsewhere that member is ignored, as each era says.
  const asked = form === "legacy" && params !== undefined && Object.hasOwn(params, "task");
  if (asked && !isObject(params?.task))
    throw new RpcError(JSONRPC_ERROR_CODES.invalidParams, "Invalid params: task must be an object");
  if (asked && support === "forbidden")
    throw new RpcError(
      JSONRPC_ERROR_CODES.methodNotFound,
      "Method not found: this tool does not run as a task (its execution.taskSupport is forbidden)",
    );
  const asTask = support !== "forbidden" && (form === "extension" || asked);
  if (support === "required" && !asTask)
    throw era === "modern"
      ? tasksRequired(`tool ${params?.name}`)
      : new RpcError(
          JSONRPC_ERROR_CODES.invalidRequest,
          form === "legacy"
            ? "Invalid request: this tool runs only as a task: call it with params.task"
            : "Invalid request: this tool runs only as a task, which this protocol version cannot take",
        );
  return asTask;
}

/** A 2025-11-25 `tasks/*` request, answered in that revision's form. */
function legacyTaskMethod(
  ctx: TaskContext,
  method: string,
  params: JsonObject | undefined,
  signal: AbortSignal,
): Promise<object> {
  if (method === "tasks/get") return legacyGet(ctx, params);
  if (method === "tasks/result") return legacyResult(ctx, params, signal);
  if (method === "tasks/list") return legacyList(ctx, params);
  return legacyCancel(ctx, params, signal);
}

/** The tool result a call with outcome `o` answers with: its envelope, and the safe diagnostic of a failure. */
function callToolResult(o: InvocationOutcome): CallToolResult & Record<string, unknown> {
  const envelope = outcomeEnvelope(o);
  const content: { type: "text"; text: string }[] = [
    { type: "text", text: JSON.stringify(envelope) },
  ];
  // The safe diagnostic: the message, and the input or result issues.
  const diagnostic = outcomeDiagnostic(o);
  if (diagnostic !== undefined) content.push({ type: "text", text: JSON.stringify(diagnostic) });
  return { content, structuredContent: envelope, isError: o.outcome !== "succeeded" };
}

/**
 * `notifications/progress` for a call whose request asked for them with a
 * `progressToken`: at most one per {@link PROGRESS_INTERVAL_MS} (a report
 * that comes sooner is sent when its slot comes, unless a newer one
 * replaced it), each with more progress than the last (as MCP requires),
 * none after `end`.
 */
function progressReporter(
  params: JsonObject | undefined,
  notify: (message: object) => void,
): { report: (p: InvocationProgress) => void; end: () => void } | undefined {
  const meta = params?._meta;
  const token =
    typeof meta === "object" && meta !== null && !Array.isArray(meta)
      ? (meta as JsonObject).progressToken
      : undefined;
  if (typeof token !== "string" && !(typeof token === "number" && Number.isSafeInteger(token)))
    return undefined;
  let highest = Number.NEGATIVE_INFINITY;
  const throttle = throttleProgress(PROGRESS_INTERVAL_MS, (p) => {
    // MCP requires each notification to carry more progress than the last.
    if (p.progress <= highest) return;
    highest = p.progress;
    notify({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: {
        progressToken: token,
        progress: p.progress,
        ...(p.total !== undefined && { total: p.total }),
        ...(p.message !== undefined && { message: p.message }),
      },
    });
  });
  return {
    report(p) {
      if (p.progress > highest) throttle.report(p);
    },
    end: () => throttle.stop(),
  };
}
