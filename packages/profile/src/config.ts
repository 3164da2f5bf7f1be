// @rukh/profile/config: the owner configuration checker, for tools that
// write or check an owner configuration outside a state directory — the
// validator with its issue codes, the owner limits, the shapes of an MCP
// endpoint's members, the words no CLI path may start with, and where an
// endpoint's HTTP side listens. Any export added here becomes public API.

export {
  httpListen,
  parseListen,
  parseOwnerConfig,
  RESERVED_CLI_WORDS,
  validateOwnerConfig,
} from "./config/index.js";
export type {
  ConfigIssueCode,
  McpEndpointConfig,
  McpHttpConfig,
  McpIntrospectionConfig,
  McpScopePreset,
  OwnerLimits,
  PresetResourceLimits,
} from "./model/index.js";
export { CONFIG_ISSUE_CODES, DEFAULT_OWNER_LIMITS } from "./model/index.js";
