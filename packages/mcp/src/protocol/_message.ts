import {
  JSON_PARSE_ERROR_CODES,
  type JsonObject,
  type JsonValue,
  numberSourceText,
  parseJson,
} from "@rukh/json";
import type { McpLimits } from "../hosting/index.js";
import { JSONRPC_ERROR_CODES } from "./_rpc.js";

/** A JSON-RPC request id as received (a string or a safe integer). */
export type RequestId = string | number;

/** A request id as a map key: `1` and `"1"` are different requests. */
export function idKey(id: RequestId): string {
  return `${typeof id}:${id}`;
}

/** One decoded incoming message. */
export type IncomingMessage =
  | {
      readonly kind: "request";
      readonly id: RequestId;
      readonly method: string;
      readonly params: JsonObject | undefined;
    }
  | {
      readonly kind: "notification";
      readonly method: string;
      readonly params: JsonObject | undefined;
    }
  | { readonly kind: "response" };

/** A message that must be answered with a JSON-RPC error. */
export interface RejectedMessage {
  readonly kind: "rejected";
  readonly id: RequestId | null;
  readonly code: number;
  readonly message: string;
}

// Failures that make the bytes not JSON at all; the rest are JSON we refuse to accept.
const PARSE_ERRORS: ReadonlySet<string> = new Set(JSON_PARSE_ERROR_CODES);

const ID_KEY = /"id"\s*:/g;

/**
 * Best effort to answer a refused message with its own id: only when the
 * text is otherwise JSON, names `id` exactly once and the id is a string or
 * safe integer. Anything ambiguous (a duplicated or escaped `id`) gives null.
 */
function recoverId(line: Buffer): RequestId | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(line);
  } catch {
    return null;
  }
  if ((text.match(ID_KEY)?.length ?? 0) !== 1 || /\\u00(69|49|64|44)/i.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  if (typeof id === "string") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  return null;
}

function validId(container: JsonObject, raw: JsonValue | undefined): RequestId | undefined {
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" && Number.isSafeInteger(raw)) {
    const text = numberSourceText(container, "id");
    if (text === undefined || /^-?(0|[1-9][0-9]*)$/.test(text)) return raw;
  }
  return undefined;
}

/** Decodes one line into a JSON-RPC message, or the error that answers it. */
export function decodeMessage(line: Buffer, limits: McpLimits): IncomingMessage | RejectedMessage {
  const parsed = parseJson(line, {
    numbers: "exact",
    limits: {
      maxBytes: limits.messageMaxBytes,
      maxDepth: limits.messageMaxDepth,
      maxNodes: limits.messageMaxNodes,
    },
  });
  if (!parsed.ok) {
    const e = parsed.error;
    const parseError = PARSE_ERRORS.has(e.code);
    return {
      kind: "rejected",
      id: recoverId(line),
      code: parseError ? JSONRPC_ERROR_CODES.parseError : JSONRPC_ERROR_CODES.invalidRequest,
      message: `${parseError ? "Parse error" : "Invalid request"}: ${e.code}: ${e.message}`,
    };
  }
  const msg = parsed.value;
  if (msg === null || typeof msg !== "object" || Array.isArray(msg))
    return invalid(null, "a message must be one JSON object (batches are not supported)");
  const hasId = Object.hasOwn(msg, "id");
  const id = hasId ? validId(msg, msg.id) : undefined;
  if (msg.jsonrpc !== "2.0") return invalid(id ?? null, 'member "jsonrpc" must be "2.0"');
  if (!Object.hasOwn(msg, "method")) {
    if (Object.hasOwn(msg, "result") || Object.hasOwn(msg, "error")) return { kind: "response" };
    return invalid(id ?? null, 'member "method" is missing');
  }
  if (typeof msg.method !== "string")
    return invalid(id ?? null, 'member "method" must be a string');
  for (const key of Object.keys(msg))
    if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params")
      return invalid(id ?? null, `unknown member "${key}"`);
  const params = msg.params;
  if (
    params !== undefined &&
    (params === null || typeof params !== "object" || Array.isArray(params))
  )
    return invalid(id ?? null, 'member "params" must be an object');
  if (!hasId) return { kind: "notification", method: msg.method, params };
  if (id === undefined)
    return invalid(null, 'member "id" must be a string or an integer within ±(2^53−1)');
  return { kind: "request", id, method: msg.method, params };
}

function invalid(id: RequestId | null, why: string): RejectedMessage {
  return {
    kind: "rejected",
    id,
    code: JSONRPC_ERROR_CODES.invalidRequest,
    message: `Invalid request: ${why}`,
  };
}
