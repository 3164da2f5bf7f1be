// The JSON-RPC errors the host answers with: their codes, and the error a
// handler throws for the protocol to turn into the error response.

import type { JsonValue } from "@rukh/json";

/**
 * The JSON-RPC error codes this host sends.
 *
 * @example
 * JSONRPC_ERROR_CODES.unsupportedProtocolVersion; // -32022
 */
export const JSONRPC_ERROR_CODES = Object.freeze({
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  unsupportedProtocolVersion: -32022,
  /** An HTTP request's routing headers disagree with its body (or are missing). */
  headerMismatch: -32020,
  /** The request needs a capability its client did not declare (the tasks extension); `data.requiredCapabilities` names it. */
  missingClientCapability: -32021,
  /** The installed profile cannot be served (a stored package failed its check, say); `data.reason` says why. */
  profileUnavailable: -32001,
} as const);

/** A request's error answer: its JSON-RPC code, message and optional data. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: JsonValue,
  ) {
    super(message);
  }
}

/** `-32601` for `method`. */
export const methodNotFound = (method: string): RpcError =>
  new RpcError(JSONRPC_ERROR_CODES.methodNotFound, `Method not found: ${method}`);
