// The main entry of @rukh/profile: what a branded CLI, its hosts and its
// commands need — a state directory and what is read from it (revisions,
// projections, routes, stored packages), where it is and whether it is safe,
// its locks, and the errors. Any export added here becomes public API; other
// audiences have their own entries: `./route-cache` (help and completion),
// `./package` (the package format), `./config` (the owner configuration
// checker), `./projection` (how MCP tools are named, sized and answered).

export type { StateDirectoryOptions } from "./_state.js";
export { StateDirectory } from "./_state.js";
export {
  compareVersions,
  mcpEndpoint,
  namespacesOf,
  presetNamed,
  profileNaming,
} from "./config/index.js";
export type {
  CliRoute,
  CliRouteTable,
  ExtensionOrigin,
  InstalledExtension,
  McpEndpoint,
  McpTool,
  OwnerConfig,
  ProfileErrorCode,
  ProfileRevision,
  ResultsRetention,
  StrictUids,
  TaskPreset,
  ToolNaming,
  ToolProjection,
  TrustedPublisher,
} from "./model/index.js";
export {
  CONFIG_MAX_BYTES,
  DEFAULT_ENDPOINT,
  DEFAULT_ENDPOINT_PRESET,
  PACKAGE_MAX_COMPRESSED_BYTES,
  PRESET_RESOURCE_DEFAULTS,
  PROFILE_ERROR_CODES,
  ProfileError,
  STRICT_UIDS_DEFAULT,
} from "./model/index.js";
export type {
  LinkProblem,
  LinkRefresh,
  PackageProblem,
  PackageReport,
} from "./package/index.js";
export {
  checkStoredPackage,
  corruptExtension,
  packPackage,
  publicKeyBase64,
  signPackage,
  storedDescriptor,
  validatePackageDir,
} from "./package/index.js";
export type {
  CallRefusal,
  CallSurface,
  ListedTool,
  ListToolsOptions,
  ToolPage,
} from "./projection/index.js";
export {
  callRefusal,
  cliRoutes,
  effectiveTaskSupport,
  listedTool,
  listTools,
  resolveTool,
  TOOL_NAME_MAX_LENGTH,
  visibleTools,
} from "./projection/index.js";
export type {
  ActiveRoutes,
  ProfileChange,
  Publication,
  PublishOptions,
} from "./publication/index.js";
export { readActiveRoutes } from "./publication/index.js";
// The state directory's place and safety, as the light entry has them: one
// module for both entries, so that a bundle keeps them in one chunk.
export type { StateDirProblem } from "./route-cache.js";
export {
  readFileAtMost,
  resolveStateDir,
  stateDirMessage,
  stateDirProblems,
  stateDirVariable,
} from "./route-cache.js";
export type { StateDirOptions } from "./routes/index.js";
export { brandStateOptions, journalDirVariable } from "./routes/index.js";
export type {
  GcOptions,
  GcReport,
  LockMechanism,
  NamedLock,
  StateLocks,
  StatePlaces,
  TemporaryDebris,
} from "./state-dir/index.js";
export {
  findTemporaryDebris,
  holdAbstractLock,
  placesLine,
  removeTemporaryDebris,
  stateLocks,
} from "./state-dir/index.js";
