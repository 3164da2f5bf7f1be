// The local errors of @rukh/mcp: a host that cannot start says why with one
// of these codes (errors sent to the peer are JSON-RPC errors, in protocol/).

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
 * try { await serveStdio({ state, binding, endpoint: { limits: { messageMaxBytes: 0 } } }); }
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
