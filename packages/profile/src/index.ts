// The complete public surface of @rukh/profile: any export added here becomes public API.

export type {
  ProfileChange,
  Publication,
  PublishOptions,
  StateDirectoryOptions,
} from "./_state.js";
export { StateDirectory } from "./_state.js";
export { parseOwnerConfig, presetNamed, validateOwnerConfig } from "./config/_config.js";
export { httpListen, parseListen } from "./config/_endpoint-http.js";
export { mcpEndpoint, profileNaming } from "./config/_endpoints.js";
export {
  compareVersions,
  inNamespace,
  namespacesOf,
  RESERVED_CLI_WORDS,
} from "./config/_trust.js";
export type { ProfileErrorCode } from "./model/_errors.js";
export { PROFILE_ERROR_CODES, ProfileError } from "./model/_errors.js";
export type { McpTransportLimits, OwnerLimits } from "./model/_limits.js";
export {
  CONFIG_MAX_BYTES,
  CURSOR_MAX_LENGTH,
  connectAnswerBytes,
  DEFAULT_OWNER_LIMITS,
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
} from "./model/_limits.js";
export type {
  CliGroup,
  CliRoute,
  CliRouteTable,
  ConfigIssueCode,
  ExtensionOrigin,
  InstalledExtension,
  ManifestFile,
  McpEndpoint,
  McpEndpointConfig,
  McpHttpConfig,
  McpIntrospectionConfig,
  McpScopePreset,
  McpTool,
  OwnerConfig,
  PackageManifest,
  PackageSignature,
  PresetResourceLimits,
  ProfileRevision,
  StrictUids,
  TaskPreset,
  ToolNaming,
  ToolProjection,
  TrustedPublisher,
} from "./model/_model.js";
export {
  CONFIG_ISSUE_CODES,
  DEFAULT_ENDPOINT,
  DEFAULT_ENDPOINT_PRESET,
  DESCRIPTOR_PATH,
  PRESET_RESOURCE_DEFAULTS,
  SIGNATURE_PATH,
  STRICT_UIDS_DEFAULT,
} from "./model/_model.js";
export type { LinkProblem, LinkRefresh } from "./package/_devlink.js";
export { computeManifest, packPackage, publicKeyBase64, signPackage } from "./package/_package.js";
export { checkStoredPackage, corruptExtension } from "./package/_storecheck.js";
export { storedDescriptor } from "./package/_stored-descriptor.js";
export type { PackageProblem, PackageReport } from "./package/_validate.js";
export { validatePackageDir } from "./package/_validate.js";
export type { ToolAnnotations } from "./projection/_annotations.js";
export { toolAnnotations } from "./projection/_annotations.js";
export type { CallRefusal, CallSurface } from "./projection/_callable.js";
export { callRefusal } from "./projection/_callable.js";
export type {
  DiagnosticIssue,
  OutcomeDiagnostic,
  OutcomeEnvelope,
  OutcomeKind,
} from "./projection/_envelope.js";
export {
  envelopeSchema,
  listedOutputSchema,
  OUTCOME_KINDS,
  outcomeDiagnostic,
  outcomeEnvelope,
} from "./projection/_envelope.js";
export type { ListedTool } from "./projection/_listed-tool.js";
export { listedTool } from "./projection/_listed-tool.js";
export type { ListToolsOptions, ToolPage } from "./projection/_tool-list.js";
export { listTools, visibleTools } from "./projection/_tool-list.js";
export type { ClientFitNameParts } from "./projection/_tool-names.js";
export {
  CLIENT_FIT_DIGITS,
  clientFitName,
  revisionTag,
  TOOL_NAME_MAX_LENGTH,
  toolName,
} from "./projection/_tool-names.js";
export { cliRoutes, resolveTool } from "./projection/_tool-projection.js";
export type { ActiveRoutes } from "./publication/_cached-routes.js";
export { readActiveRoutes } from "./publication/_cached-routes.js";
/**
 * @deprecated The same function as `readFileAtMost` of
 * `@rukh/profile/route-cache`, under its former name: kept only while a
 * caller reads it by that name, then removed.
 */
export { readFileAtMost as readBounded } from "./routes/_bounded-reads.js";
export { REVISION_MAX_BYTES, ROUTES_MAX_BYTES } from "./routes/_route-cache.js";
export type { StateDirOptions } from "./routes/_statedir.js";
export {
  brandStateOptions,
  FOREIGN_STATE_VARIABLES,
  journalDirVariable,
  resolveStateDir,
  stateDirVariable,
} from "./routes/_statedir.js";
export {
  type StateDirCheckOptions,
  type StateDirProblem,
  stateDirMessage,
  stateDirProblems,
} from "./routes/_statedir-check.js";
export type { TemporaryDebris } from "./state-dir/_debris.js";
export { findTemporaryDebris, removeTemporaryDebris } from "./state-dir/_debris.js";
export type { GcOptions, GcReport } from "./state-dir/_gc.js";
export type { LockMechanism, NamedLock, StateLocks } from "./state-dir/_lock.js";
export {
  holdAbstractLock,
  SOCKET_PATH_MAX_BYTES,
  SYSTEM_LOCKS,
  stateLocks,
} from "./state-dir/_lock.js";
export type { StatePlaces } from "./state-dir/_places.js";
export { placesLine } from "./state-dir/_places.js";
