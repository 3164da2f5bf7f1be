/** Stable codes of local (non-protocol) failures of the MCP host. */
export const MCP_ERROR_CODES = [
  "invalid_limits",
  "invalid_binding",
  "invalid_options",
  "state_unavailable",
  "listen_failed",
] as const;

/** One of {@link MCP_ERROR_CODES}. */
export type McpErrorCode = (typeof MCP_ERROR_CODES)[number];

/**
 * The one local error type of `@rukh/mcp` (errors sent to the peer are
 * JSON-RPC errors, see {@link JSONRPC_ERROR_CODES}).
 *
 * @example
 * try { await serveStdio({ state, binding, limits: { messageMaxBytes: 0 } }); }
 * catch (e) { if (e instanceof McpError) console.error(e.code); }
 */
export class McpError extends Error {
  override readonly name = "McpError";
  readonly code: McpErrorCode;
  constructor(code: McpErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

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
  /** The installed profile cannot be served (a stored package failed its check, say); `data.reason` says why. */
  profileUnavailable: -32001,
} as const);
