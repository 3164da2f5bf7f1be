// One admitted request served under its binding: the handlers made for
// this request (as stdio makes them for its one client) in the era it
// names, the protocol's one answer, sent as JSON or at the end of an event
// stream; the client closing its side cancels it, and so does a 2025-era
// client's notifications/cancelled, whichever replica it reaches.

import type { ServerResponse } from "node:http";
import type { HostBinding } from "@rukh/core";
import type { JsonObject } from "@rukh/json";
import type { StateDirectory } from "@rukh/profile";
import type { HostCore, HostSettings, McpLogger } from "../hosting/index.js";
import { errorAnswer, JSONRPC_ERROR_CODES, type Protocol } from "../protocol/index.js";
import { bindingHandlers, type ToolViews } from "../tools/index.js";
import type { AccessRecord } from "./_access-log.js";
import type { Admitted } from "./_gate.js";
import type { LegacyCancels } from "./_legacy-cancels.js";
import { jsonReply, streamReply } from "./_reply.js";

/** What every request of one HTTP host is served with. */
export interface ServeContext {
  readonly state: StateDirectory;
  readonly core: HostCore;
  /** The host's settings, passed whole to each request's tools. */
  readonly settings: HostSettings;
  readonly protocol: Protocol;
  readonly logger: McpLogger;
  /** Aborted when the host shuts down. */
  readonly ownerSignal: AbortSignal;
  /** The views of a preset, shared by every request bound to it. */
  views(preset: string): ToolViews;
  /** The 2025-era requests in hand, and the cancellations left for them (see {@link cancelNotified}). */
  readonly legacyCancels: LegacyCancels;
}

/**
 * A 2025-era client's `notifications/cancelled`: the request it names, of
 * the same subject, is cancelled and gets no answer, on this replica or on
 * the one that holds it (see {@link LegacyCancels}). One that names no such
 * request does nothing.
 */
export function cancelNotified(
  ctx: ServeContext,
  binding: HostBinding,
  method: string,
  params: JsonObject | undefined,
): void {
  if (method !== "notifications/cancelled" || params === undefined) return;
  const id = params.requestId;
  if (typeof id !== "string" && typeof id !== "number") return;
  void ctx.legacyCancels
    .notified(binding.subject, id)
    .catch((e: unknown) =>
      ctx.logger.log("warn", "a cancellation could not be passed on", { error: String(e) }),
    );
}

/** Most `subscriptions/listen` streams one subject may hold open. */
export const LISTENS_PER_SUBJECT = 8;
/** Most such streams open at once on one host. */
export const LISTENS_MAX = 256;

let requests = 0;

/**
 * One admitted request, served under its own binding; its answer is JSON or
 * a stream. What came of it goes into its access `record`.
 */
export async function serveRequest(
  ctx: ServeContext,
  res: ServerResponse,
  { binding, id, method, params, era }: Admitted,
  record: AccessRecord,
): Promise<void> {
  const { state, core, settings, logger, protocol } = ctx;
  if (ctx.ownerSignal.aborted) {
    const refused = errorAnswer(
      id,
      JSONRPC_ERROR_CODES.internalError,
      "The host is shutting down",
      {
        status: 503,
      },
    );
    record.error = true;
    jsonReply(res).finish(refused.status, refused.bytes);
    return;
  }
  // A 2025-era call always streams: a cancelled one then ends with no answer, as that era asks.
  const streams =
    method === "subscriptions/listen" ||
    (method === "tools/call" && (era.era === "legacy" || hasProgressToken(params)));
  const reply = streams ? streamReply(res) : jsonReply(res);
  // Each POST is its own request: it is known by itself, whatever id its client gave it.
  const open = protocol.open(
    `http:${++requests}`,
    { kind: "request", id, method, params },
    binding.subject,
  );
  if ("bytes" in open) {
    record.error = true;
    reply.finish(open.status, open.bytes);
    return;
  }
  const named =
    era.era === "legacy" ? ctx.legacyCancels.hold(binding.subject, id, open.key) : undefined;
  // The client closing its side before the answer is the request's cancellation.
  res.on("close", () => {
    if (!res.writableFinished) protocol.cancel(open.key);
  });
  const { dispatcher, watcher } = bindingHandlers({
    state,
    core: core.bound(binding),
    ownerSignal: ctx.ownerSignal,
    settings,
    notify: (message) => reply.notify(message),
    runs: () => reply.begin(),
    views: ctx.views(binding.preset),
    logger,
    // Every request is its own era's first: there is nothing to report per request.
    info: () => {},
    // A 2025-era request after initialize: the version its client negotiated (with any replica).
    ...(era.era === "legacy" && era.version !== undefined && { initializedAs: era.version }),
  });
  const stop = () => watcher.stop();
  ctx.ownerSignal.addEventListener("abort", stop, { once: true });
  try {
    const answer = await protocol.answer(open, dispatcher);
    if (answer === undefined) {
      record.outcome = "cancelled";
      reply.abandon();
    } else {
      if (answer.outcome !== undefined) record.outcome = answer.outcome;
      record.error = answer.error !== undefined;
      // The 2025 eras tie no HTTP status to a request's JSON-RPC error: it is
      // the request's answer, on a 200. Their clients take any other status
      // for the transport failing (the SDKs throw an HTTP error that has lost
      // the JSON-RPC code; Python's reads a 404 as its session gone).
      reply.finish(era.era === "legacy" ? 200 : answer.status, answer.bytes);
    }
  } finally {
    if (named !== undefined) ctx.legacyCancels.release(named, open.key);
    ctx.ownerSignal.removeEventListener("abort", stop);
    watcher.stop();
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
