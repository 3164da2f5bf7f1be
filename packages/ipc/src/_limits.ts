/** The protocol identifier exchanged in the handshake and bound into every frame MAC. */
export const IPC_PROTOCOL = "rukh.ipc/1";

/** The file descriptor the channel occupies in the child: always 3. */
export const IPC_CHANNEL_FD = 3;

/**
 * The environment variable the host sets to `"3"` so the runtime knows it runs
 * under a host. It carries no secret; the runtime deletes it at startup.
 */
export const IPC_CHANNEL_ENV = "RUKH_IPC_FD";

/** Bytes of the per-invocation secret (HMAC-SHA256 key). */
export const IPC_SECRET_BYTES = 32;

/** Bytes of each handshake nonce. */
export const IPC_NONCE_BYTES = 32;

/**
 * Largest accepted frame payload in bytes (1 MiB). It fits the largest result
 * envelope: 128 KiB of UTF-8 result data, even when every character is escaped
 * as `\u00XX` (6×), plus the completion envelope. A length prefix above this is
 * rejected as soon as its four bytes arrive, before anything is buffered.
 */
export const IPC_MAX_FRAME_BYTES = 1_048_576;

/**
 * The descriptor of a held process's hold pipe: the process says it runs
 * and waits there until the host releases it (see `held` of
 * `spawnCommandProcess`). Closed before the command's program is loaded.
 */
export const IPC_HOLD_FD = 4;

/** How long a held process may take to say it runs before it counts as hung, in milliseconds. */
export const IPC_HOLD_TIMEOUT_MS = 10_000;

/** Default time the host waits for a valid child `hello`, in milliseconds. */
export const IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;

/** Every bound a reader of channel bytes enforces; a breach closes the channel. */
export interface IpcLimits {
  /** Largest frame payload in bytes ({@link IPC_MAX_FRAME_BYTES}). */
  readonly maxFrameBytes: number;
  /** Deepest nesting of objects and arrays in a payload. */
  readonly maxDepth: number;
  /** Most object members plus array elements in one payload. */
  readonly maxNodes: number;
  /** Longest identifier (invocation id, command, input id, feature) in UTF-8 bytes. */
  readonly maxIdentifierBytes: number;
  /** Longest effect reference in UTF-8 bytes. */
  readonly maxReferenceBytes: number;
  /** Most entries in `explicitInputIds`, `features` or `effects`. */
  readonly maxListEntries: number;
  /** Longest `log` line or safe `message`, in UTF-8 bytes. */
  readonly maxTextBytes: number;
  /** Most `log` frames a child may send on one channel. */
  readonly maxLogFrames: number;
  /** Most `progress` frames a child may send on one channel. */
  readonly maxProgressFrames: number;
  /** Largest `remainingMs` in an invoke (24 hours). */
  readonly maxRemainingMs: number;
}

/**
 * The limits of protocol `rukh.ipc/1`. They are part of the wire contract
 * (see docs/ipc.md), so they are constants rather than options.
 *
 * @example
 * if (Buffer.byteLength(line) > IPC_LIMITS.maxTextBytes) line = line.slice(0, 1000);
 */
export const IPC_LIMITS: IpcLimits = Object.freeze({
  maxFrameBytes: IPC_MAX_FRAME_BYTES,
  maxDepth: 48,
  maxNodes: 16_384,
  maxIdentifierBytes: 256,
  maxReferenceBytes: 1_024,
  maxListEntries: 256,
  maxTextBytes: 4_096,
  maxLogFrames: 1_000,
  maxProgressFrames: 1_000,
  maxRemainingMs: 86_400_000,
});
