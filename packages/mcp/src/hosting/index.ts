// What every MCP host is given and opens before it serves, whatever its
// transport; the ground floor of the package, importing no other room.
// Steps: hostSettings (the options both hosts share, read once: the
// endpoint's settings, its limits over MCP_LIMITS, the server info) →
// stateOf and openCore (the state directory and its invocation core, which
// runs a call only under a binding it is given) → ownerController (the
// owner's shutdown) → settled (the work in its hands, waited for). A host
// that cannot start says why with an McpError code.

export type { McpErrorCode } from "./_errors.js";
export { MCP_ERROR_CODES, McpError } from "./_errors.js";
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
export { NO_LOGGER } from "./_logger.js";
export type { HostCore } from "./_opening.js";
export { openCore, ownerController, settled, stateOf } from "./_opening.js";
export type {
  HostSettings,
  McpEndpointSettings,
  McpHostOptions,
  ServerInfo,
} from "./_settings.js";
export { hostSettings } from "./_settings.js";
