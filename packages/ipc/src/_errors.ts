// The codes by which a peer broke the protocol (as opposed to going away,
// timing out or local misuse); see IpcError.protocolViolation.
const PROTOCOL_VIOLATION_CODES = [
  "handshake_failed",
  "unsupported_protocol",
  "frame_too_large",
  "malformed_frame",
  "bad_mac",
  "out_of_sequence",
  "truncated_frame",
  "invalid_json",
  "invalid_message",
  "unexpected_message",
  "duplicate_completion",
  "diagnostics_limit",
] as const;

/**
 * Stable codes for every way the channel can fail: the peer broke the
 * protocol, went away or timed out, or the API or runtime was misused locally.
 */
export const IPC_ERROR_CODES = [
  "handshake_timeout",
  "hold_failed",
  ...PROTOCOL_VIOLATION_CODES,
  "closed_before_completion",
  "channel_error",
  "spawn_failed",
  "invalid_state",
  "not_managed",
] as const;

/** One of {@link IPC_ERROR_CODES}. */
export type IpcErrorCode = (typeof IPC_ERROR_CODES)[number];

const PROTOCOL_VIOLATIONS: ReadonlySet<IpcErrorCode> = new Set(PROTOCOL_VIOLATION_CODES);

/**
 * The one error type of `@rukh/ipc`. `code` is stable and safe to branch on;
 * `message` says what failed and what was expected; `cause` carries the
 * underlying error (a `JsonError`, an I/O error) when there is one.
 *
 * @example
 * const reason = await proc.closed;
 * if (reason?.code === "bad_mac") log.warn("child channel forged or corrupted");
 */
export class IpcError extends Error {
  override readonly name = "IpcError";
  readonly code: IpcErrorCode;

  constructor(code: IpcErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }

  /** True when the peer broke the protocol (forged, malformed, oversized or out-of-order frames, a bad handshake). */
  get protocolViolation(): boolean {
    return PROTOCOL_VIOLATIONS.has(this.code);
  }
}
