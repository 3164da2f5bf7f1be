// The JSON-RPC errors the host answers with, thrown by whatever handles a
// request and turned into the error response by the host.

import type { JsonValue } from "@rukh/json";
import { JSONRPC_ERROR_CODES } from "./_errors.js";

/** A request's error answer: its JSON-RPC code, message and optional data. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: JsonValue,
  ) {
    super(message);
  }
}

/** `-32601` for `method`. */
export const methodNotFound = (method: string): RpcError =>
  new RpcError(JSONRPC_ERROR_CODES.methodNotFound, `Method not found: ${method}`);

/** The launch preset is gone from the active profile: an explicit error, never an empty list. */
export const presetMissing = (): RpcError =>
  new RpcError(
    JSONRPC_ERROR_CODES.internalError,
    "the host's task preset is not defined in the active profile",
  );

/** One answer for every name that cannot be called, so none reveals more than another. */
export const unknownTool = (): RpcError =>
  new RpcError(JSONRPC_ERROR_CODES.invalidParams, "Unknown tool");
