// The complete public surface of @rukh/mcp: any export added here becomes public API.

export {
  LEGACY_PROTOCOL_VERSIONS,
  MCP_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
} from "./_era.js";
export type { McpErrorCode } from "./_errors.js";
export { JSONRPC_ERROR_CODES, MCP_ERROR_CODES, McpError } from "./_errors.js";
export type { McpHost, ServeStdioOptions } from "./_host.js";
export { serveStdio } from "./_host.js";
export type { HttpAuthenticator, HttpAuthOutcome } from "./_http-auth.js";
export type { McpHttpHost, ServeHttpOptions } from "./_http-host.js";
export { serveHttp } from "./_http-host.js";
export type { McpLimits } from "./_limits.js";
export {
  MCP_IO_DEADLINE_MS,
  MCP_LIMITS,
  MCP_LIST_DEADLINE_MS,
  MCP_MESSAGE_MAX_BYTES,
  MCP_MESSAGE_MAX_DEPTH,
  MCP_MESSAGE_MAX_NODES,
  MCP_QUEUE_MAX_BYTES,
  MCP_QUEUE_MAX_MESSAGES,
  MCP_READY_PROCESSES,
  MCP_RESPONSE_MAX_BYTES,
} from "./_limits.js";
export type { McpLogger } from "./_logger.js";
export type { McpCloseReason } from "./_stdio-connection.js";
