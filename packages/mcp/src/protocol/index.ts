// One request's life, whichever transport carried it: the strict JSON-RPC
// reader, the protocol eras, the method table of each era, and the request
// table with its reply path. A transport only moves bytes and proves who
// sent them; from a decoded request to the bytes of its answer it is here,
// once. Steps: decodeMessage (a line or body → a message, or the refusal
// that answers it) → Protocol.open (into the request table: an id already
// in hand, one listen stream too many) → eraOf (which era serves it) →
// Dispatcher.handle (that era's method table) → Protocol.answer (the list
// deadline, cancellation, the response limit) → Answer (its bytes and HTTP
// status). Imports hosting/ only.

export type { Dispatcher, HostTools, ListenStreams, Request } from "./_dispatch.js";
export { createDispatcher } from "./_dispatch.js";
export type { Era, TaskForm } from "./_era.js";
export {
  completeFor,
  declaresTasks,
  isObject,
  LEGACY_PROTOCOL_VERSIONS,
  legacyVersionFor,
  MCP_PROTOCOL_VERSIONS,
  META_SERVER_INFO,
  META_SUBSCRIPTION,
  META_VERSION,
  MODERN_PROTOCOL_VERSION,
  TASKS_EXTENSION,
  tasksRequired,
} from "./_era.js";
export type { IncomingMessage, RequestId } from "./_message.js";
export { decodeMessage, idKey } from "./_message.js";
export type { Answer } from "./_request-table.js";
export { errorAnswer, Protocol } from "./_request-table.js";
export { JSONRPC_ERROR_CODES, RpcError } from "./_rpc.js";
