// One admitted request served under its binding: the stdio host's
// dispatcher, tools and list watcher, made for this request, answering as
// JSON or as an event stream; the client closing its side cancels it.

import type { ServerResponse } from "node:http";
import type { InvocationCore } from "@rukh/core";
import type { JsonObject } from "@rukh/json";
import type { StateDirectory, ToolNaming } from "@rukh/profile";
import { createDispatcher } from "./_dispatch.js";
import { completeFor } from "./_era.js";
import { JSONRPC_ERROR_CODES } from "./_errors.js";
import type { McpLogger } from "./_host.js";
import type { Admitted } from "./_http-gate.js";
import { errorMessage, jsonReply, statusOf, streamReply } from "./_http-reply.js";
import type { McpLimits } from "./_limits.js";
import { RpcError } from "./_rpc.js";
import { hostTools } from "./_tools.js";
import type { ToolViews } from "./_views.js";
import { ListWatcher } from "./_watch.js";

/** What every request of one HTTP host is served with. */
export interface ServeContext {
  readonly state: StateDirectory;
  readonly core: InvocationCore;
  readonly limits: McpLimits;
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly logger: McpLogger;
  /** Aborted when the host shuts down. */
  readonly ownerSignal: AbortSignal;
  readonly naming?: ToolNaming;
  readonly deadlineMs?: number;
  readonly devExtensions: readonly string[];
  /** The views of a preset, shared by every request bound to it. */
  views(preset: string): ToolViews;
  /** Counts a listen stream of `subject` open; false when a limit is reached. */
  openListen(subject: string): boolean;
  closeListen(subject: string): void;
}

/** Most `subscriptions/listen` streams one subject may hold open. */
export const LISTENS_PER_SUBJECT = 8;
/** Most such streams open at once on one host. */
export const LISTENS_MAX = 256;

/** One admitted request, served under its own binding; its answer is JSON or a stream. */
export async function serveRequest(
  ctx: ServeContext,
  res: ServerResponse,
  { binding, id, method, params }: Admitted,
): Promise<void> {
  const { state, core, limits, serverInfo, logger } = ctx;
  if (ctx.ownerSignal.aborted) {
    jsonReply(res).finish(
      503,
      errorMessage(id, JSONRPC_ERROR_CODES.internalError, "The host is shutting down"),
    );
    return;
  }
  // Open streams are bounded per subject and in all: each one holds a socket and a poller.
  const listens = method === "subscriptions/listen";
  if (listens && !ctx.openListen(binding.subject)) {
    jsonReply(res).finish(
      429,
      errorMessage(
        id,
        JSONRPC_ERROR_CODES.invalidRequest,
        `Too many subscriptions/listen streams: at most ${LISTENS_PER_SUBJECT} per subject and ${LISTENS_MAX} in all may be open at once`,
      ),
    );
    return;
  }
  const cancel = new AbortController();
  // The client closing its side before the answer is the request's cancellation.
  res.on("close", () => {
    if (!res.writableFinished) cancel.abort(new Error("the client closed the request"));
  });
  const streams = listens || (method === "tools/call" && hasProgressToken(params));
  const reply = streams ? streamReply(res) : jsonReply(res);
  const tools = hostTools({
    state,
    core: core.bound(binding),
    binding,
    ownerSignal: ctx.ownerSignal,
    serverInfo,
    notify: (message) => reply.notify(message),
    ...(ctx.naming !== undefined && { naming: ctx.naming }),
    ...(ctx.deadlineMs !== undefined && { deadlineMs: ctx.deadlineMs }),
    devExtensions: ctx.devExtensions,
    views: ctx.views(binding.preset),
  });
  const watcher = new ListWatcher({
    state,
    send: (message) => reply.notify(message),
    complete: (result) => completeFor("modern", result, serverInfo),
    serverInfo,
    warn: (message, data) => logger.log("warn", message, data),
  });
  const stop = () => watcher.stop();
  ctx.ownerSignal.addEventListener("abort", stop, { once: true });
  const dispatcher = createDispatcher({
    tools,
    watcher,
    limits,
    serverInfo,
    // Every request is its own era's first: there is nothing to report per request.
    info: () => {},
  });
  try {
    const result = await dispatcher.handle({ kind: "request", id, method, params }, cancel.signal);
    // Serialized once: measured here, sent as it is.
    const answer = JSON.stringify({ jsonrpc: "2.0", id, result });
    const bytes = Buffer.byteLength(answer);
    if (bytes > limits.responseMaxBytes) {
      logger.log("warn", "response too large", { bytes });
      reply.finish(
        500,
        errorMessage(
          id,
          JSONRPC_ERROR_CODES.internalError,
          `the response would exceed ${limits.responseMaxBytes} bytes`,
        ),
      );
    } else reply.finish(200, answer);
  } catch (e) {
    if (e instanceof RpcError)
      reply.finish(statusOf(e.code), errorMessage(id, e.code, e.message, e.data));
    else {
      logger.log("error", "request failed", { method, error: String(e) });
      reply.finish(500, errorMessage(id, JSONRPC_ERROR_CODES.internalError, "Internal error"));
    }
  } finally {
    ctx.ownerSignal.removeEventListener("abort", stop);
    watcher.stop();
    if (listens) ctx.closeListen(binding.subject);
  }
}

function hasProgressToken(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return (
    typeof meta === "object" &&
    meta !== null &&
    !Array.isArray(meta) &&
    Object.hasOwn(meta, "progressToken")
  );
}
