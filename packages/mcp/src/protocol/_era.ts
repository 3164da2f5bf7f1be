// Which protocol era a request is served in: 2026-07-28 per request (its
// `_meta` names the version and the client's capabilities), or the 2025
// versions after `initialize`; and how a result is completed for its era.

import type { JsonObject } from "@rukh/json";
import { JSONRPC_ERROR_CODES, RpcError } from "./_rpc.js";

/** The protocol version served per request, without a session. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** The earlier versions served through `initialize`, newest first. */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18"] as const;
/**
 * The 2025 version an `initialize` that asks for `requested` is answered in:
 * that one when this host serves it, else the newest it serves.
 */
export function legacyVersionFor(requested: string): string {
  return (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LEGACY_PROTOCOL_VERSIONS[0];
}

/** Every protocol version this host speaks. */
export const MCP_PROTOCOL_VERSIONS = [
  MODERN_PROTOCOL_VERSION,
  ...LEGACY_PROTOCOL_VERSIONS,
] as const;

export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

/** The 2026-07-28 tasks extension's id (SEP-2663): a client declares it per request, a server in server/discover. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether a 2026-07-28 request's client declared the tasks extension in this request's capabilities. */
export function declaresTasks(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  const caps = isObject(meta) ? meta[META_CAPABILITIES] : undefined;
  const ext = isObject(caps) ? caps.extensions : undefined;
  return isObject(ext) && isObject(ext[TASKS_EXTENSION]);
}

/** The error of a request that needs the tasks extension from a client that did not declare it. */
export const tasksRequired = (what: string) =>
  new RpcError(
    JSONRPC_ERROR_CODES.missingClientCapability,
    `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );

export type Era = "modern" | "legacy";

/**
 * Which form of tasks a request may use: the 2026-07-28 extension (its
 * client declared it on this request), 2025-11-25's own (its client
 * initialized that version), or none (2025-06-18, or an undeclaring client).
 */
export type TaskForm = "extension" | "legacy" | "none";

/** The version whose `initialize` brings 2025-11-25's tasks. */
export const LEGACY_TASKS_VERSION = "2025-11-25";

/** The tasks capability an `initialize` of that version answers with: task calls, listing, cancelling. */
export const LEGACY_TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
} as const;

/** The task form of a request in `era` with `params`, its client initialized as `legacyVersion`. */
export function taskFormOf(
  era: Era,
  params: JsonObject | undefined,
  legacyVersion: string | undefined,
): TaskForm {
  if (era === "modern") return declaresTasks(params) ? "extension" : "none";
  return legacyVersion === LEGACY_TASKS_VERSION ? "legacy" : "none";
}

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The era `method` with `params` is served in, checking the per-request
 * envelope; `initialized`: the client has been through `initialize`.
 */
export function eraOf(method: string, params: JsonObject | undefined, initialized: boolean): Era {
  const meta = params?._meta;
  if (isObject(meta) && Object.hasOwn(meta, META_VERSION)) {
    const requested = meta[META_VERSION];
    // A version is a string; any other value is a malformed request. A string
    // this host does not serve — whatever its form — is an unsupported version.
    if (typeof requested !== "string")
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidParams,
        `Invalid params: _meta["${META_VERSION}"] must be a protocol version string`,
      );
    if (requested !== MODERN_PROTOCOL_VERSION)
      throw new RpcError(
        JSONRPC_ERROR_CODES.unsupportedProtocolVersion,
        "Unsupported protocol version",
        { supported: [MODERN_PROTOCOL_VERSION], requested },
      );
    if (!isObject(meta[META_CAPABILITIES]))
      throw new RpcError(
        JSONRPC_ERROR_CODES.invalidParams,
        `Invalid params: _meta["${META_CAPABILITIES}"] must be an object`,
      );
    return "modern";
  }
  if (method === "initialize") return "legacy";
  if (initialized || method === "ping") return "legacy";
  throw new RpcError(
    JSONRPC_ERROR_CODES.invalidParams,
    `Invalid params: _meta["${META_VERSION}"] is required (or use initialize for ${LEGACY_PROTOCOL_VERSIONS.join("/")})`,
  );
}

/** `result` as its era sends it: the 2026-07-28 era marks it complete and names the server. */
export function completeFor(
  era: Era,
  result: Record<string, unknown>,
  serverInfo: { readonly name: string; readonly version: string },
): object {
  if (era === "legacy") return result;
  const meta = isObject(result._meta) ? result._meta : {};
  return {
    ...result,
    resultType: "complete",
    _meta: { ...meta, [META_SERVER_INFO]: serverInfo },
  };
}
