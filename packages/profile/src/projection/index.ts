// Room projection/ — what a revision offers, as the CLI and MCP see it:
// which CLI path names which command (_route-claims.ts), whether a command
// can be called at all (_callable.ts), how tools are named
// (_tool-names.ts) and which of them share a client-fit slug
// (_client-fit-slugs.ts), the projection built from descriptors or a tool index
// (_tool-projection.ts), pages of it for a preset (_tool-list.ts), a tool
// as a list sends it with its annotations (_listed-tool.ts,
// _annotations.ts), whether each endpoint's pages can carry its tools
// (_endpoint-pages.ts), whether a tool's call may run as a task under a
// preset (_task-support.ts), and the outcome envelope both surfaces show
// (_envelope.ts). Imports model and config.
//
// Steps:
//   1. buildRoutes          the CLI route table, conflicts refused
//   2. toolCommands         the commands that are MCP tools
//   3. toolName             each tool's name
//   4. buildProjection / projectionFromIndex    the projection
//   5. visibleTools / listTools                  what a preset sees, page by page
//   6. resolveTool          a called name back to its tool

export type { ToolAnnotations } from "./_annotations.js";
export type { CallRefusal, CallSurface } from "./_callable.js";
export { callRefusal } from "./_callable.js";
export type { SlugIndex } from "./_client-fit-slugs.js";
export {
  carriedSlugIndex,
  slugIndexFromJson,
  slugIndexJson,
  slugIndexOf,
} from "./_client-fit-slugs.js";
export { checkEndpointPages, hasResponseLimits } from "./_endpoint-pages.js";
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
export type { ListedTool } from "./_listed-tool.js";
export { listedTool } from "./_listed-tool.js";
export {
  buildRoutes,
  claimRoutes,
  routeKeyOfPublished,
  routeKeyOfWords,
  routeOf,
  routingOf,
} from "./_route-claims.js";
export { effectiveTaskSupport } from "./_task-support.js";
export type { ListToolsOptions, ToolPage } from "./_tool-list.js";
export { listTools, visibleTools } from "./_tool-list.js";
export type { ClientFitNameParts } from "./_tool-names.js";
export { clientFitName, TOOL_NAME_MAX_LENGTH, toolName } from "./_tool-names.js";
export {
  buildProjection,
  checkClientFitNames,
  checkToolSizes,
  cliRoutes,
  devLinkIds,
  hasCompactNames,
  indexedTool,
  projectionFromIndex,
  projectionOf,
  resolveTool,
  toolCommands,
} from "./_tool-projection.js";
