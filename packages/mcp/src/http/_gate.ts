// One HTTP request up to its dispatch: whether it sends a header twice that
// it may send once, where it comes from (and, for an allowed web page, what
// its browser may read), which path it asks for
// (its target's host, when it names one, checked as Host is), who sent it
// (its credential, before anything else is read), what it carries, and
// whether its routing headers say what its body says. A request that fails
// a check is answered here and goes no further.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { HostBinding } from "@rukh/core";
import type { JsonObject } from "@rukh/json";
import type { McpLimits } from "../hosting/index.js";
import {
  decodeMessage,
  JSONRPC_ERROR_CODES,
  legacyVersionFor,
  MODERN_PROTOCOL_VERSION,
  type RequestId,
} from "../protocol/index.js";
import { type AccessRecord, logWord } from "./_access-log.js";
import type { HttpAuthenticator } from "./_authenticator.js";
import {
  checkMedia,
  checkRepeated,
  checkRouting,
  checkSource,
  type RequestEra,
} from "./_checks.js";
import { allowOrigin, answerPreflight } from "./_cors.js";
import { jsonRpcError, readBody, refuse } from "./_reply.js";
import { peerOf } from "./_server.js";
import { targetPath } from "./_target.js";

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** What a gate checks against. */
export interface GateContext {
  readonly mcpPath: string;
  readonly allowedHosts: ReadonlySet<string>;
  readonly allowedOrigins: ReadonlySet<string>;
  readonly authenticator: HttpAuthenticator;
  readonly limits: McpLimits;
  closing(): boolean;
  /** A notification its sender's credential admitted (a 2025-era client's cancellation is one). */
  notified(binding: HostBinding, method: string, params: JsonObject | undefined): void;
}

/** A request that passed every check: its binding and its message. */
export interface Admitted {
  readonly binding: HostBinding;
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly era: RequestEra;
}

/**
 * `req` admitted, or `undefined` once it has been answered (a refusal,
 * metadata, a notification); what it learns of the request on the way (its
 * subject, method, tool and era) goes into its access `record`.
 */
export async function gate(
  ctx: GateContext,
  req: IncomingMessage,
  res: ServerResponse,
  record: AccessRecord,
): Promise<Admitted | undefined> {
  const { limits } = ctx;
  const repeated = checkRepeated(req.rawHeaders);
  if (repeated !== undefined) return refuse(res, repeated);
  const source = checkSource(req.headers, ctx.allowedHosts, ctx.allowedOrigins);
  if (source !== undefined) return refuse(res, source);
  const path = targetPath(req.url, ctx.allowedHosts);
  if (typeof path !== "string") return refuse(res, path);
  const origin = oneHeader(req, "origin");
  allowOrigin(res, origin);
  if (path === WELL_KNOWN || path === `${WELL_KNOWN}${ctx.mcpPath}`) {
    if (req.method !== "GET" && req.method !== "HEAD")
      return refuse(res, {
        status: 405,
        code: JSONRPC_ERROR_CODES.invalidRequest,
        message: "Method not allowed",
        headers: { allow: "GET" },
      });
    const body = JSON.stringify(ctx.authenticator.metadata);
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
    res.end(req.method === "HEAD" ? undefined : body);
    return undefined;
  }
  if (path !== ctx.mcpPath)
    return refuse(res, {
      status: 404,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: "Not found",
    });
  // A browser asks before a page's POST, with no credential: the answer says only what may be sent.
  if (req.method === "OPTIONS" && origin !== undefined) return answerPreflight(res);
  if (req.method !== "POST")
    return refuse(res, {
      status: 405,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message:
        "Method not allowed: this endpoint takes one POST per message; it offers no standalone stream and no sessions to end",
      headers: { allow: "POST" },
    });
  if (ctx.closing())
    return refuse(res, {
      status: 503,
      code: JSONRPC_ERROR_CODES.internalError,
      message: "The host is shutting down",
    });

  // Who it is comes first: no credential, no list and no call, nothing read.
  const auth = await ctx.authenticator.authenticate(oneHeader(req, "authorization"), peerOf(req));
  // The credential has done its work: nothing after this point can read it.
  delete req.headers.authorization;
  if (!auth.ok)
    return refuse(res, {
      status: auth.status,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: auth.message,
      headers: {
        "www-authenticate": auth.challenge,
        ...(auth.retryAfterSeconds !== undefined && {
          "retry-after": String(Math.max(1, Math.ceil(auth.retryAfterSeconds))),
        }),
      },
    });
  record.subject = logWord(auth.binding.subject);
  const media = checkMedia(req.headers);
  if (media !== undefined) return refuse(res, media);
  const body = await readBody(req, limits.messageMaxBytes);
  if (body === "too_large")
    return refuse(res, {
      status: 413,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: `Invalid request: message exceeds ${limits.messageMaxBytes} bytes`,
    });
  if (body === "aborted") return undefined;
  // The host may have begun to close while the body came.
  if (ctx.closing())
    return refuse(res, {
      status: 503,
      code: JSONRPC_ERROR_CODES.internalError,
      message: "The host is shutting down",
    });
  const msg = decodeMessage(body, limits);
  if (msg.kind === "rejected")
    return jsonRpcError(res, { status: 400, id: msg.id, code: msg.code, message: msg.message });
  if (msg.kind === "response")
    return refuse(res, {
      status: 400,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: "Invalid request: a client sends no responses over HTTP",
    });
  record.method = logWord(msg.method);
  if (msg.method === "tools/call" && typeof msg.params?.name === "string")
    record.tool = logWord(msg.params.name);
  if (msg.kind === "notification") {
    ctx.notified(auth.binding, msg.method, msg.params);
    res.writeHead(202).end();
    return undefined;
  }
  const routing = checkRouting(req.headers, msg.method, msg.params);
  if ("status" in routing)
    return jsonRpcError(res, {
      status: routing.status,
      id: msg.id,
      code: routing.code,
      message: routing.message,
    });
  record.era = eraOf(routing, msg.params);
  return {
    binding: auth.binding,
    id: msg.id,
    method: msg.method,
    params: msg.params,
    era: routing,
  };
}

/** The version a request is served in, as its access line names it. */
function eraOf(routing: RequestEra, params: JsonObject | undefined): string | null {
  if (routing.era === "modern") return MODERN_PROTOCOL_VERSION;
  if (routing.version !== undefined) return routing.version;
  // An initialize: the version it will be answered in.
  const requested = params?.protocolVersion;
  return typeof requested === "string" ? legacyVersionFor(requested) : null;
}

function oneHeader(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
