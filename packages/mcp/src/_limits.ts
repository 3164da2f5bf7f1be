import { McpError } from "./_errors.js";

/** Largest accepted incoming message (one line without its newline), in bytes: 1 MiB. */
export const MCP_MESSAGE_MAX_BYTES = 1_048_576;
/** Deepest accepted nesting of an incoming message. */
export const MCP_MESSAGE_MAX_DEPTH = 32;
/** Most object members plus array elements accepted in one incoming message. */
export const MCP_MESSAGE_MAX_NODES = 4_096;
/** Largest encoded response the host sends, in bytes: 2 MiB; a larger one becomes an error. */
export const MCP_RESPONSE_MAX_BYTES = 2_097_152;
/** Messages waiting to be written at which the host stops reading until half are written. */
export const MCP_QUEUE_MAX_MESSAGES = 32;
/** Bytes waiting to be written at which the host stops reading (4 MiB); four times this closes the transport. */
export const MCP_QUEUE_MAX_BYTES = 4_194_304;
/** Requests read but not yet answered at which the host stops reading until one is answered. */
export const MCP_PENDING_MAX_REQUESTS = 256;
/** Time a line may stay incomplete (from its first byte) and a write may stay blocked. */
export const MCP_IO_DEADLINE_MS = 2_000;
/** Time `server/discover`, `initialize` and `tools/list` may take before they fail. */
export const MCP_LIST_DEADLINE_MS = 30_000;

/**
 * The limits of one stdio host. Owners may only tighten them.
 *
 * @example
 * const limits: McpLimits = { ...MCP_LIMITS, ioDeadlineMs: 1_000 };
 */
export interface McpLimits {
  readonly messageMaxBytes: number;
  readonly messageMaxDepth: number;
  readonly messageMaxNodes: number;
  readonly responseMaxBytes: number;
  readonly queueMaxMessages: number;
  readonly queueMaxBytes: number;
  readonly pendingMaxRequests: number;
  readonly ioDeadlineMs: number;
  readonly listDeadlineMs: number;
}

/**
 * The default (and largest) limits.
 *
 * @example
 * MCP_LIMITS.messageMaxBytes; // 1048576
 */
export const MCP_LIMITS: McpLimits = Object.freeze({
  messageMaxBytes: MCP_MESSAGE_MAX_BYTES,
  messageMaxDepth: MCP_MESSAGE_MAX_DEPTH,
  messageMaxNodes: MCP_MESSAGE_MAX_NODES,
  responseMaxBytes: MCP_RESPONSE_MAX_BYTES,
  queueMaxMessages: MCP_QUEUE_MAX_MESSAGES,
  queueMaxBytes: MCP_QUEUE_MAX_BYTES,
  pendingMaxRequests: MCP_PENDING_MAX_REQUESTS,
  ioDeadlineMs: MCP_IO_DEADLINE_MS,
  listDeadlineMs: MCP_LIST_DEADLINE_MS,
});

/** Applies tighter limits; a looser or non-positive value fails. */
export function resolveLimits(over: Partial<McpLimits> | undefined): McpLimits {
  const out: Record<string, number> = { ...MCP_LIMITS };
  for (const [k, v] of Object.entries(over ?? {})) {
    const max = (MCP_LIMITS as unknown as Record<string, number>)[k];
    if (max === undefined) throw new McpError("invalid_limits", `unknown limit ${k}`);
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > max)
      throw new McpError("invalid_limits", `limit ${k} must be an integer in 1..${max}`);
    out[k] = v;
  }
  return Object.freeze(out) as unknown as McpLimits;
}
