// The complete public surface of @rukh/mcp: any export added here becomes public API.

export type {
  McpEndpointSettings,
  McpErrorCode,
  McpHostOptions,
  McpLimits,
  McpLogger,
} from "./hosting/index.js";
export {
  MCP_ERROR_CODES,
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
  McpError,
} from "./hosting/index.js";
export type {
  HttpAccessLog,
  HttpAuthenticator,
  HttpAuthOutcome,
  McpHttpHost,
  ServeHttpOptions,
} from "./http/index.js";
export { serveHttp } from "./http/index.js";
export {
  JSONRPC_ERROR_CODES,
  LEGACY_PROTOCOL_VERSIONS,
  MCP_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
} from "./protocol/index.js";
export type { McpCloseReason, McpStdioHost, ServeStdioOptions } from "./stdio/index.js";
export { serveStdio } from "./stdio/index.js";
