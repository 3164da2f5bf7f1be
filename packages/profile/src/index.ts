// The complete public surface of @rukh/profile: any export added here becomes public API.

export type { ToolAnnotations } from "./_annotations.js";
export { toolAnnotations } from "./_annotations.js";
/**
 * @deprecated The same function as `readFileAtMost` of
 * `@rukh/profile/route-cache`, under its former name: kept only while a
 * caller reads it by that name, then removed.
 */
export { readFileAtMost as readBounded } from "./_bounded-reads.js";
export type { ActiveRoutes } from "./_cached-routes.js";
export { readActiveRoutes } from "./_cached-routes.js";
export type { CallRefusal, CallSurface } from "./_callable.js";
export { callRefusal } from "./_callable.js";
export { parseOwnerConfig, presetNamed, validateOwnerConfig } from "./_config.js";
export type { TemporaryDebris } from "./_debris.js";
export { findTemporaryDebris, removeTemporaryDebris } from "./_debris.js";
export type { LinkProblem, LinkRefresh } from "./_devlink.js";
export { httpListen, parseListen } from "./_endpoint-http.js";
export { mcpEndpoint, profileNaming } from "./_endpoints.js";
export type {
  DiagnosticIssue,
  OutcomeDiagnostic,
  OutcomeEnvelope,
  OutcomeKind,
} from "./_envelope.js";
export {
  envelopeSchema,
  listedOutputSchema,
  OUTCOME_KINDS,
  outcomeDiagnostic,
  outcomeEnvelope,
} from "./_envelope.js";
export type { ProfileErrorCode } from "./_errors.js";
export { PROFILE_ERROR_CODES, ProfileError } from "./_errors.js";
export type { GcOptions, GcReport } from "./_gc.js";
export type { McpTransportLimits, OwnerLimits } from "./_limits.js";
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
} from "./_limits.js";
export type { ListedTool } from "./_listed-tool.js";
export { listedTool } from "./_listed-tool.js";
export type { LockMechanism, NamedLock, StateLocks } from "./_lock.js";
export { holdAbstractLock, SOCKET_PATH_MAX_BYTES, SYSTEM_LOCKS, stateLocks } from "./_lock.js";
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
export { computeManifest, packPackage, publicKeyBase64, signPackage } from "./_package.js";
export type { StatePlaces } from "./_places.js";
export { placesLine } from "./_places.js";
export type {
  ProfileChange,
  Publication,
  PublishOptions,
  StateDirectoryOptions,
} from "./_state.js";
export { StateDirectory } from "./_state.js";
export type { StateDirOptions } from "./_statedir.js";
export {
  brandStateOptions,
  FOREIGN_STATE_VARIABLES,
  journalDirVariable,
  resolveStateDir,
  stateDirVariable,
} from "./_statedir.js";
export {
  type StateDirCheckOptions,
  type StateDirProblem,
  stateDirMessage,
  stateDirProblems,
} from "./_statedir-check.js";
export { checkStoredPackage, corruptExtension } from "./_storecheck.js";
export { storedDescriptor } from "./_stored-descriptor.js";
export type { ListToolsOptions, ToolPage } from "./_tool-list.js";
export { listTools, visibleTools } from "./_tool-list.js";
export type { ClientFitNameParts } from "./_tool-names.js";
export {
  CLIENT_FIT_DIGITS,
  clientFitName,
  revisionTag,
  TOOL_NAME_MAX_LENGTH,
  toolName,
} from "./_tool-names.js";
export { cliRoutes, resolveTool } from "./_tool-projection.js";
export {
  compareVersions,
  inNamespace,
  namespacesOf,
  RESERVED_CLI_WORDS,
} from "./_trust.js";
export type { PackageProblem, PackageReport } from "./_validate.js";
export { validatePackageDir } from "./_validate.js";
export { REVISION_MAX_BYTES, ROUTES_MAX_BYTES } from "./route-cache.js";
