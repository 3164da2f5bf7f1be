// What the CLI writes and how a run ends, the room every other one stands
// on. Its steps, in the order a line of output meets them: text from
// outside escaped for a terminal (`_terminal.ts`) and words quoted for a
// shell (`_shell.ts`); the CLI's own words styled (`_style.ts`); written to a
// stream that ends quietly when its reader has gone (`_stream.ts`); a
// result, an outcome or an error as the one `--json` envelope
// (`_envelope.ts`); the exit code (`_exit.ts`); and the session of one run
// (`_session.ts`), which every part reports a usage or internal error
// through. It imports no other room.

export type { OutputBody, OutputError, OutputIssue, OutputOutcome } from "./_envelope.js";
export { OUTPUT_VERSION, outputEnvelope, printEnvelope } from "./_envelope.js";
export { builtinEnd, EXIT_CODES, exitCodeOf } from "./_exit.js";
export type { Globals, Session } from "./_session.js";
export {
  errStyle,
  internal,
  outStyle,
  shown,
  stopped,
  usage,
  usageLines,
} from "./_session.js";
export { commandLine, shellWord } from "./_shell.js";
export type { CliStream } from "./_stream.js";
export { readerSafe } from "./_stream.js";
export type { Style } from "./_style.js";
export { ANSI, PLAIN, RUNNABLE } from "./_style.js";
export {
  BLOCK_INDENT,
  resultText,
  terminalBlock,
  terminalJson,
  terminalLine,
  terminalText,
} from "./_terminal.js";
