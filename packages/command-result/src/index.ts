// The complete public surface of @rukh/command-result: any export added here becomes public API.
export type { CommandResultIssueCode } from "./_codes.js";
export { COMMAND_RESULT_ISSUE_CODES } from "./_codes.js";
export type { CommandResultLimits } from "./_limits.js";
export {
  COMMAND_RESULT_LIMITS,
  COMMAND_RESULT_MAX_BYTES,
  RESULT_MAX_DEPTH,
  RESULT_MAX_NODES,
  RESULT_SCHEMA_MAX_BYTES,
  RESULT_VALIDATION_MAX_MS,
} from "./_limits.js";
export type { ResultSchema } from "./_schema.js";
export { checkResultSchema } from "./_schema.js";
export type { CommandResult, ResultDeclaration } from "./_validate.js";
export { validateCommandResult } from "./_validate.js";
