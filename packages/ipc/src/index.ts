// The complete public surface of @rukh/ipc: any export added here becomes public API.
export type { IpcErrorCode } from "./_errors.js";
export { IPC_ERROR_CODES, IpcError } from "./_errors.js";
export type {
  CommandProcess,
  InvokeRequest,
  SpawnCommandProcessOptions,
  StdioMode,
} from "./_host.js";
export { shadowedStdio, spawnCommandProcess } from "./_host.js";
export type { IpcLimits } from "./_limits.js";
export {
  IPC_CHANNEL_ENV,
  IPC_CHANNEL_FD,
  IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS,
  IPC_LIMITS,
  IPC_MAX_FRAME_BYTES,
  IPC_PROTOCOL,
} from "./_limits.js";
export type {
  CancelCause,
  CancelMessage,
  CompletionMessage,
  CompletionOutcome,
  InvokeMessage,
  LogLevel,
  LogMessage,
  ProgressMessage,
} from "./_messages.js";
export type {
  CommandContext,
  CommandHandler,
  CommandLogger,
  CommandSuccess,
  ResultExtras,
  RunCommandProcessOptions,
} from "./_runtime.js";
export {
  CommandFailure,
  runCommandProcess,
  structuredResult,
  textResult,
} from "./_runtime.js";
