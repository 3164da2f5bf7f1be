// Room model/ — what a profile is: the owner configuration, an installed
// revision and its projections as types (_model.ts, which imports no
// validator), the limits every reader enforces (_limits.ts), the one error
// class and its codes (_errors.ts), and the parts of a command identity
// (_identity.ts). The ground floor: it imports no other room.
//
// Steps: none — every other room reads these names.

export type { ProfileErrorCode } from "./_errors.js";
export { ioError, PROFILE_ERROR_CODES, ProfileError } from "./_errors.js";
export { entryFor, extensionOf, extensionPattern } from "./_identity.js";
export type { McpTransportLimits, OwnerLimits } from "./_limits.js";
export {
  CONFIG_MAX_BYTES,
  CURSOR_MAX_LENGTH,
  connectAnswerBytes,
  DEFAULT_OWNER_LIMITS,
  LIST_ANSWER_RESERVE_BYTES,
  listAnswerBytes,
  listPageBytes,
  MCP_INSTRUCTIONS_MAX_LENGTH,
  MCP_TRANSPORT_LIMITS,
  PACKAGE_MAX_BYTES,
  PACKAGE_MAX_COMPRESSED_BYTES,
  PACKAGE_MAX_FILE_BYTES,
  PACKAGE_MAX_FILES,
  PACKAGE_MAX_PATH_BYTES,
  PAGE_MAX_BYTES,
  PAGE_MAX_TOOLS,
  SIGNATURE_MAX_BYTES,
  TOOL_DESCRIPTION_MAX_LENGTH,
} from "./_limits.js";
export type {
  CliGroup,
  CliRoute,
  CliRouteTable,
  ConfigIssueCode,
  ExtensionOrigin,
  IndexedTool,
  InstalledExtension,
  LoadedExtension,
  ManifestFile,
  McpEndpoint,
  McpEndpointConfig,
  McpHttpConfig,
  McpIntrospectionConfig,
  McpScopePreset,
  McpTool,
  OwnerConfig,
  PackageFiles,
  PackageManifest,
  PackageSignature,
  PresetResourceLimits,
  ProfileRevision,
  ResultsRetention,
  Routing,
  StrictUids,
  TaskPreset,
  ToolNaming,
  ToolProjection,
  TrustedPublisher,
  VerifiedPackage,
} from "./_model.js";
export {
  CONFIG_ISSUE_CODES,
  DEFAULT_ENDPOINT,
  DEFAULT_ENDPOINT_PRESET,
  DESCRIPTOR_PATH,
  PRESET_RESOURCE_DEFAULTS,
  SIGNATURE_PATH,
  STRICT_UIDS_DEFAULT,
} from "./_model.js";
