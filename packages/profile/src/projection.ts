// @rukh/profile/projection: a projection in detail, for MCP hosts and
// whoever checks a tool list — how tools are named, the bounds of their
// metadata and of an MCP answer, the output schemas tools list, and the
// envelope of an outcome both surfaces show. Listing and resolving tools are
// in the main entry. Any export added here becomes public API.

export type {
  CliGroup,
  McpTransportLimits,
} from "./model/index.js";
export {
  CURSOR_MAX_LENGTH,
  connectAnswerBytes,
  MCP_INSTRUCTIONS_MAX_LENGTH,
  MCP_TRANSPORT_LIMITS,
  TOOL_DESCRIPTION_MAX_LENGTH,
} from "./model/index.js";
export type {
  ClientFitNameParts,
  DiagnosticIssue,
  OutcomeDiagnostic,
  OutcomeEnvelope,
  OutcomeKind,
  ToolAnnotations,
} from "./projection/index.js";
export {
  clientFitName,
  envelopeSchema,
  listedOutputSchema,
  OUTCOME_KINDS,
  outcomeDiagnostic,
  outcomeEnvelope,
  toolName,
} from "./projection/index.js";
