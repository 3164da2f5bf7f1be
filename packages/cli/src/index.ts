// The complete public surface of @rukh/cli: any export added here becomes public API.

export { builtinCliSpec } from "./_builtin-cli.js";
export { createCli } from "./_cli.js";
export type { CompletionShell } from "./_completion.js";
export { COMPLETION_SHELLS, completionScript } from "./_completion.js";
export { linkAgain } from "./_devlinks.js";
export type {
  OutputBody,
  OutputError,
  OutputIssue,
  OutputOutcome,
} from "./_envelope.js";
export { OUTPUT_VERSION, outputEnvelope, printEnvelope } from "./_envelope.js";
export type { CliErrorCode } from "./_errors.js";
export { CLI_ERROR_CODES, CliError } from "./_errors.js";
export { EXIT_CODES } from "./_exit.js";
export type { Cli, CliOptions } from "./_options.js";
export type { BuiltinContext, CliBuiltin } from "./_routes.js";
export type { CliStream } from "./_session.js";
export { commandLine, shellWord } from "./_shell.js";
export { terminalBlock, terminalLine, terminalText } from "./_terminal.js";
