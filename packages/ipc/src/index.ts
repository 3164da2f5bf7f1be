// The complete public surface of @rukh/ipc: any export added here becomes public API.

export { spawnCommandProcess } from "./_host.js";
export type {
  CommandProcess,
  InvokeRequest,
  ProcessHold,
  SpawnCommandProcessOptions,
  StdioMode,
} from "./_host-model.js";
export type { IpcLimits } from "./_limits.js";
export {
  IPC_CHANNEL_ENV,
  IPC_CHANNEL_FD,
  IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS,
  IPC_HOLD_FD,
  IPC_HOLD_TIMEOUT_MS,
  IPC_LIMITS,
  IPC_MAX_FRAME_BYTES,
  IPC_PROTOCOL,
} from "./_limits.js";
export type {
  CancelMessage,
  CompletionMessage,
  CompletionOutcome,
  InvokeMessage,
  LogMessage,
  ProgressMessage,
} from "./_messages.js";
export { shadowedStdio } from "./_spawn.js";
// What command programs import (the bundled child runtime is this part alone),
// listed by name as runtime.ts lists it.
export type {
  CancelCause,
  CommandContext,
  CommandHandler,
  CommandLogger,
  CommandSuccess,
  IpcErrorCode,
  JsonData,
  LogLevel,
  ResultExtras,
  RunCommandProcessOptions,
  StructuredResult,
  TextResult,
  TypedHandler,
} from "./runtime.js";
export {
  CommandFailure,
  IPC_ERROR_CODES,
  IpcError,
  prepareCommandProcess,
  runCommandProcess,
  structuredResult,
  textResult,
} from "./runtime.js";
