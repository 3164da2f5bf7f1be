import { MCP_TRANSPORT_LIMITS, type McpTransportLimits } from "@rukh/profile/projection";
import { McpError } from "./_errors.js";

/** Largest accepted incoming message (one line without its newline), in bytes: 1 MiB. */
export const MCP_MESSAGE_MAX_BYTES = MCP_TRANSPORT_LIMITS.messageMaxBytes;
/** Deepest accepted nesting of an incoming message. */
export const MCP_MESSAGE_MAX_DEPTH = MCP_TRANSPORT_LIMITS.messageMaxDepth;
/** Most object members plus array elements accepted in one incoming message. */
export const MCP_MESSAGE_MAX_NODES = MCP_TRANSPORT_LIMITS.messageMaxNodes;
/** Largest encoded response the host sends, in bytes: 2 MiB; a larger one becomes an error. */
export const MCP_RESPONSE_MAX_BYTES = MCP_TRANSPORT_LIMITS.responseMaxBytes;
/** Messages waiting to be written at which the host stops reading until half are written. */
export const MCP_QUEUE_MAX_MESSAGES = MCP_TRANSPORT_LIMITS.queueMaxMessages;
/** Bytes waiting to be written at which the host stops reading (4 MiB); four times this closes the transport. */
export const MCP_QUEUE_MAX_BYTES = MCP_TRANSPORT_LIMITS.queueMaxBytes;
/** Requests read but not yet answered at which the host stops reading until one is answered. */
export const MCP_PENDING_MAX_REQUESTS = MCP_TRANSPORT_LIMITS.pendingMaxRequests;
/** Time a line may stay incomplete (from its first byte) and a write may stay blocked. */
export const MCP_IO_DEADLINE_MS = MCP_TRANSPORT_LIMITS.ioDeadlineMs;
/** Time `server/discover`, `initialize` and `tools/list` may take before they fail. */
export const MCP_LIST_DEADLINE_MS = MCP_TRANSPORT_LIMITS.listDeadlineMs;

/**
 * Command processes a host keeps started ahead of a call, by default: up to
 * two per repeated launch, at most this many in all (see `readyProcesses` of
 * the core). A client calling the same tool again does not wait for a process
 * to start; each process still runs one call.
 */
export const MCP_READY_PROCESSES = 4;

/**
 * The limits of one stdio host (the owner configuration's endpoint limits).
 * Owners may only tighten them.
 *
 * @example
 * const limits: McpLimits = { ...MCP_LIMITS, ioDeadlineMs: 1_000 };
 */
export type McpLimits = McpTransportLimits;

/**
 * The default (and largest) limits.
 *
 * @example
 * MCP_LIMITS.messageMaxBytes; // 1048576
 */
export const MCP_LIMITS: McpLimits = MCP_TRANSPORT_LIMITS;

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
