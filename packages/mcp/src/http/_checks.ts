// What one Streamable HTTP POST must be before its message is dispatched:
// where it may come from (Host, Origin), what it carries (Content-Type,
// Accept), and the era it is served in, with headers that agree with the
// body (MCP-Protocol-Version, Mcp-Method, Mcp-Name). Each failure is an answer: its HTTP status and the
// JSON-RPC error the body carries.

import type { IncomingHttpHeaders } from "node:http";
import type { JsonObject } from "@rukh/json";
import {
  isObject,
  JSONRPC_ERROR_CODES,
  LEGACY_PROTOCOL_VERSIONS,
  META_VERSION,
  MODERN_PROTOCOL_VERSION,
} from "../protocol/index.js";

/** The tasks/* requests whose Mcp-Name header carries their taskId. */
const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/cancel", "tasks/update"]);

/** A refusal of a request before (or instead of) dispatch. */
export interface HttpRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Headers a request may carry once. Node keeps the first of some repeated
 * headers and joins others, and a proxy may keep the last: two values would
 * be read one way here and another there.
 */
const ONCE = [
  "Host",
  "Authorization",
  "Origin",
  "Content-Type",
  "MCP-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
];
const ONCE_BY_NAME = new Map(ONCE.map((h) => [h.toLowerCase(), h]));

/**
 * The refusal (400) of a request that repeats a header it may carry once,
 * naming the header; `rawHeaders` are the request's, name and value in turn.
 */
export function checkRepeated(rawHeaders: readonly string[]): HttpRefusal | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const once = ONCE_BY_NAME.get(name);
    if (once === undefined) continue;
    if (seen.has(name))
      return {
        status: 400,
        code: JSONRPC_ERROR_CODES.invalidRequest,
        message: `Bad request: the ${once} header is sent more than once; it may be sent once`,
      };
    seen.add(name);
  }
  return undefined;
}

/** A header's one value; a repeated header is refused where it matters, by {@link checkRepeated}. */
function one(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(",") : v;
}

/**
 * Whether the request may come from where it says: its `Host` must be one
 * this endpoint answers to (DNS rebinding sends the attacker's name), and an
 * `Origin`, when a browser sends one, must be allowed. No `Origin` is a
 * client that is not a web page.
 */
export function checkSource(
  headers: IncomingHttpHeaders,
  allowedHosts: ReadonlySet<string>,
  allowedOrigins: ReadonlySet<string>,
): HttpRefusal | undefined {
  const host = one(headers, "host")?.toLowerCase();
  if (host === undefined || !allowedHosts.has(host))
    return {
      status: 403,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: `Forbidden: this endpoint does not answer to host ${JSON.stringify(host ?? "")}`,
    };
  const origin = one(headers, "origin");
  if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase()))
    return {
      status: 403,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: `Forbidden: origin ${JSON.stringify(origin)} is not allowed`,
    };
  return undefined;
}

/** `Content-Type` must be JSON; `Accept` must take both a JSON answer and a stream. */
export function checkMedia(headers: IncomingHttpHeaders): HttpRefusal | undefined {
  const type = one(headers, "content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    return {
      status: 415,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: "Unsupported media type: the body must be application/json",
    };
  const accept = (one(headers, "accept") ?? "")
    .split(",")
    .map((a) => a.split(";")[0]!.trim().toLowerCase());
  if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
    return {
      status: 406,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: "Not acceptable: Accept must list application/json and text/event-stream",
    };
  return undefined;
}

/** A header value as sent: plain, or `=?base64?…?=` for text plain ASCII cannot carry. */
function decodedHeader(value: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (m === null) return value;
  const bytes = Buffer.from(m[1]!, "base64");
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

const mismatch = (message: string): HttpRefusal => ({
  status: 400,
  code: JSONRPC_ERROR_CODES.headerMismatch,
  message,
});

/** The era a POST is served in: 2026-07-28 per request, or a 2025 version after `initialize`. */
export type RequestEra =
  | { readonly era: "modern" }
  | {
      readonly era: "legacy";
      /** The version its client negotiated, from `MCP-Protocol-Version`; none for `initialize` itself. */
      readonly version: string | undefined;
    };

/**
 * The era of a request, and whether its headers say what its body says. A
 * body whose `_meta` names a protocol version is a 2026-07-28 request: its
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` must match it. Else it
 * is a 2025-era request: `initialize`, or one that names the version its
 * client negotiated in `MCP-Protocol-Version` (no session holds it: each
 * POST says it). Anything else is a 400 that names both ways in.
 */
export function checkRouting(
  headers: IncomingHttpHeaders,
  method: string,
  params: JsonObject | undefined,
): HttpRefusal | RequestEra {
  const meta = params?._meta;
  const version = isObject(meta) ? meta[META_VERSION] : undefined;
  const header = one(headers, "mcp-protocol-version");
  if (version === undefined) {
    if (method === "initialize") return { era: "legacy", version: undefined };
    if (header !== undefined && (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(header))
      return { era: "legacy", version: header };
    // A 2026-07-28 request whose body lacks the version its header names.
    if (header === MODERN_PROTOCOL_VERSION)
      return {
        status: 400,
        code: JSONRPC_ERROR_CODES.invalidParams,
        message: `Invalid params: _meta["${META_VERSION}"] is required in a ${MODERN_PROTOCOL_VERSION} request`,
      };
    return {
      status: 400,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: `Bad request: MCP-Protocol-Version ${JSON.stringify(header ?? null)} is no version this endpoint serves after initialize (${LEGACY_PROTOCOL_VERSIONS.join(", ")}), and the body's _meta["${META_VERSION}"] names none (${MODERN_PROTOCOL_VERSION}, per request)`,
    };
  }
  if (header !== version)
    return mismatch(
      `Header mismatch: MCP-Protocol-Version ${JSON.stringify(header ?? null)} differs from _meta["${META_VERSION}"] ${JSON.stringify(version)}`,
    );
  const sent = one(headers, "mcp-method");
  if (sent !== method)
    return mismatch(
      `Header mismatch: Mcp-Method ${JSON.stringify(sent ?? null)} differs from the method ${JSON.stringify(method)}`,
    );
  // What Mcp-Name names: a call's tool, or the task a tasks/* request is about.
  const named = method === "tools/call" ? "name" : TASK_METHODS.has(method) ? "taskId" : undefined;
  if (named !== undefined) {
    const raw = one(headers, "mcp-name");
    const name = raw === undefined ? undefined : decodedHeader(raw.trim());
    if (name !== params?.[named])
      return mismatch(
        `Header mismatch: Mcp-Name ${JSON.stringify(raw ?? null)} differs from the ${named === "name" ? "tool name" : "taskId"} in the body`,
      );
  }
  return { era: "modern" };
}
