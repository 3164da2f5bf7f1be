// One request to its answer: the era it is served in, then the method table
// of that era. A method missing from an era's table is `-32601` there (the
// 2026-07-28 era has no `initialize` or `ping`; the 2025 eras no
// `server/discover` or `subscriptions/listen`).

import type { DiscoverResult, InitializeResult } from "@modelcontextprotocol/server";
import type { JsonObject } from "@rukh/json";
import type { HostSettings } from "../hosting/index.js";
import {
  completeFor,
  type Era,
  eraOf,
  isObject,
  LEGACY_TASKS_CAPABILITY,
  LEGACY_TASKS_VERSION,
  legacyVersionFor,
  MODERN_PROTOCOL_VERSION,
  TASKS_EXTENSION,
  type TaskForm,
  taskFormOf,
  tasksRequired,
} from "./_era.js";
import type { IncomingMessage, RequestId } from "./_message.js";
import { JSONRPC_ERROR_CODES, methodNotFound, RpcError } from "./_rpc.js";

/** A request as the dispatcher gets it, and the client's cancellation of it. */
export type Request = Extract<IncomingMessage, { kind: "request" }>;
type Handler = (era: Era, msg: Request, signal: AbortSignal) => Promise<object>;

/** `tools/list`, `tools/call` and `tasks/*` of one host; `form`: the tasks the request's client takes. */
export interface HostTools {
  list(era: Era, params: JsonObject | undefined, form: TaskForm): Promise<object>;
  /** `signal`: the client's cancellation of this request. */
  call(
    era: Era,
    params: JsonObject | undefined,
    signal: AbortSignal,
    form: TaskForm,
  ): Promise<object>;
  /**
   * A `tasks/*` request: `tasks/get`, `tasks/cancel` and `tasks/update` of
   * the extension, or `tasks/get`, `tasks/result`, `tasks/list` and
   * `tasks/cancel` of 2025-11-25.
   */
  task(
    form: Exclude<TaskForm, "none">,
    method: string,
    params: JsonObject | undefined,
    signal: AbortSignal,
  ): Promise<object>;
}

/** What answers `subscriptions/listen`: the streams that hear of list changes. */
export interface ListenStreams {
  listen(id: RequestId, params: JsonObject | undefined, signal: AbortSignal): Promise<object>;
}

/** What a dispatcher serves with. */
export interface DispatchContext {
  readonly tools: HostTools;
  readonly watcher: ListenStreams;
  /** The host's settings: the server info it reports, and its endpoint's instructions (sent in the initialize and server/discover results when the owner wrote some). */
  readonly settings: HostSettings;
  info(message: string, data: Record<string, unknown>): void;
  /**
   * The 2025 version its client negotiated in an `initialize` this
   * dispatcher did not see (an HTTP request names it in its header).
   */
  readonly initializedAs?: string;
}

/** The requests of one host. */
export interface Dispatcher {
  handle(msg: Request, signal: AbortSignal): Promise<object>;
  /** Whether a 2025-era client has been through `initialize`. */
  readonly initialized: boolean;
}

/** The dispatcher of one client's requests (over HTTP, of one request's). */
export function createDispatcher(ctx: DispatchContext): Dispatcher {
  const { tools, watcher } = ctx;
  const { serverInfo, endpoint } = ctx.settings;
  const instructions =
    endpoint.instructions === undefined ? {} : { instructions: endpoint.instructions };
  let legacyVersion: string | undefined = ctx.initializedAs;
  const erasSeen = new Set<Era>();
  const complete = (era: Era, result: Record<string, unknown>) =>
    completeFor(era, result, serverInfo);

  function initialize(params: JsonObject | undefined): object {
    if (legacyVersion !== undefined)
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidRequest,
        "Invalid request: already initialized",
      );
    const requested = params?.protocolVersion;
    if (typeof requested !== "string" || !isObject(params?.capabilities))
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidParams,
        "Invalid params: initialize needs protocolVersion (string) and capabilities (object)",
      );
    const version = legacyVersionFor(requested);
    legacyVersion = version;
    return {
      protocolVersion: version,
      capabilities: {
        tools: { listChanged: true },
        ...(version === LEGACY_TASKS_VERSION && { tasks: LEGACY_TASKS_CAPABILITY }),
      },
      serverInfo,
      ...instructions,
    } satisfies InitializeResult;
  }

  const formOf = (era: Era, msg: Request) => taskFormOf(era, msg.params, legacyVersion);
  const shared: Record<string, Handler> = {
    "tools/list": (era, msg) => tools.list(era, msg.params, formOf(era, msg)),
    "tools/call": (era, msg, signal) => tools.call(era, msg.params, signal, formOf(era, msg)),
  };
  /** The `tasks/*` methods of a task form: a request without that form may not use them. */
  const taskMethods = (form: "extension" | "legacy", names: readonly string[]) =>
    Object.fromEntries(
      names.map((method): [string, Handler] => [
        method,
        async (era, msg, signal) => {
          if (formOf(era, msg) !== form)
            throw form === "extension" ? tasksRequired(method) : methodNotFound(method);
          return tools.task(form, method, msg.params, signal);
        },
      ]),
    );
  const methods: Record<Era, Record<string, Handler>> = {
    modern: {
      ...shared,
      "server/discover": async (era) =>
        complete(era, {
          supportedVersions: [MODERN_PROTOCOL_VERSION],
          capabilities: {
            tools: { listChanged: true },
            extensions: { [TASKS_EXTENSION]: {} },
          },
          ttlMs: 0,
          cacheScope: "private",
          ...instructions,
        } satisfies DiscoverResult),
      "subscriptions/listen": async (_era, msg, signal) =>
        watcher.listen(msg.id, msg.params, signal),
      // No tasks/list (a task is found only by its id) and no tasks/result (tasks/get carries it).
      ...taskMethods("extension", ["tasks/get", "tasks/cancel", "tasks/update"]),
    },
    legacy: {
      ...shared,
      // 2025-11-25's tasks, for a client that initialized that version.
      ...taskMethods("legacy", ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"]),
      ping: async (era) => complete(era, {}),
      initialize: async (_era, msg) => initialize(msg.params),
    },
  };

  return {
    get initialized() {
      return legacyVersion !== undefined;
    },
    async handle(msg, signal) {
      const params = msg.params;
      // tasks/update carries inputResponses by definition (acknowledged: no task here waits for input).
      if (
        params !== undefined &&
        (Object.hasOwn(params, "requestState") ||
          (Object.hasOwn(params, "inputResponses") && msg.method !== "tasks/update"))
      )
        throw new RpcError(
          JSONRPC_ERROR_CODES.invalidParams,
          "Invalid params: continuation input (requestState/inputResponses) is not supported",
        );
      const era = eraOf(msg.method, params, legacyVersion !== undefined);
      if (!erasSeen.has(era)) {
        erasSeen.add(era);
        ctx.info("serving a protocol era", {
          era,
          version: era === "modern" ? MODERN_PROTOCOL_VERSION : (legacyVersion ?? "pending"),
        });
      }
      const handler = Object.hasOwn(methods[era], msg.method)
        ? methods[era][msg.method]
        : undefined;
      if (handler === undefined) throw methodNotFound(msg.method);
      return handler(era, msg, signal);
    },
  };
}
