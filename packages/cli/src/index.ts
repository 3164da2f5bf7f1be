// The complete public surface of @rukh/cli: any export added here becomes public API.

export { createCli } from "./_cli.js";
export type {
  BuiltinContext,
  Cli,
  CliBuiltin,
  CliErrorCode,
  CliOptions,
} from "./declarations/index.js";
export { builtinCliSpec, CLI_ERROR_CODES, CliError } from "./declarations/index.js";
export type { CompletionShell } from "./help/index.js";
export { COMPLETION_SHELLS, completionScript } from "./help/index.js";
export type {
  CliStream,
  OutputBody,
  OutputError,
  OutputIssue,
  OutputOutcome,
} from "./output/index.js";
export {
  builtinEnd,
  commandLine,
  EXIT_CODES,
  OUTPUT_VERSION,
  outputEnvelope,
  printEnvelope,
  resultText,
  shellWord,
  terminalBlock,
  terminalLine,
  terminalText,
} from "./output/index.js";
export { linkAgain } from "./routes/index.js";
