// What a command program imports: the child side of the channel and nothing
// of the host's. The build bundles this file, with everything it uses, into
// the one-module runtime `dist/runtime/index.js` that packages vendor as
// `node_modules/@rukh/ipc`.
export type { IpcErrorCode } from "./_errors.js";
export { IPC_ERROR_CODES, IpcError } from "./_errors.js";
export type { CancelCause, LogLevel } from "./_messages.js";
export type {
  CommandContext,
  CommandHandler,
  CommandLogger,
  CommandSuccess,
  JsonData,
  ResultExtras,
  RunCommandProcessOptions,
  StructuredResult,
  TextResult,
  TypedHandler,
} from "./_runtime.js";
export {
  CommandFailure,
  prepareCommandProcess,
  runCommandProcess,
  structuredResult,
  textResult,
} from "./_runtime.js";
