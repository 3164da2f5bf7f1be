// The host side's public shapes: what spawnCommandProcess is given and what
// it returns. A file of its own so that the files doing the work import the
// shapes without importing each other.
import type { ChildProcess } from "node:child_process";
import type { IpcError } from "./_errors.js";
import type {
  CancelCause,
  CompletionMessage,
  InvokeMessage,
  LogMessage,
  ProgressMessage,
} from "./_messages.js";

/** What the child gets on fds 0–2: nothing, or a pipe the caller must drain. */
export type StdioMode = "ignore" | "pipe";

/** The invoke message without its `type`, as the core supplies it. */
export type InvokeRequest = Omit<InvokeMessage, "type">;

/**
 * Options of {@link spawnCommandProcess}.
 *
 * @example
 * const options: SpawnCommandProcessOptions = { program: process.execPath, args: ["cmd.mjs"],
 *   env: { PATH: "/usr/bin" }, detached: true, onLog: (l) => diag.info(l.message) };
 */
export interface SpawnCommandProcessOptions {
  /** Executable path or name (looked up in `PATH`); never run through a shell. */
  readonly program: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** The child's complete environment; defaults to this process's. `RUKH_IPC_FD=3` is added. */
  readonly env?: Readonly<Record<string, string>>;
  /** fds 0, 1 and 2 of the child; default `["ignore", "pipe", "pipe"]`. Piped streams must be drained. */
  readonly stdio?: readonly [StdioMode, StdioMode, StdioMode];
  /** Start the child in its own process group, so `process.kill(-pid)` reaches its descendants. */
  readonly detached?: boolean;
  /** How long to wait for a valid `hello`; default {@link IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS}. */
  readonly handshakeTimeoutMs?: number;
  /** Called for each `log` frame, in order. A throwing listener closes nothing; its error is ignored. */
  readonly onLog?: (entry: LogMessage) => void;
  /** Called for each `progress` frame, in order. */
  readonly onProgress?: (progress: ProgressMessage) => void;
  /**
   * Descriptor numbers above 3 that the child would otherwise inherit from
   * this process: each is opened on `/dev/null` in the child instead, so none
   * of this process's files, pipes or sockets reaches it.
   */
  readonly shadowFds?: readonly number[];
  /**
   * Start the process held: its program is the runtime's hold bootstrap
   * (`@rukh/ipc/held`) followed by the command's program, so nothing of the
   * command runs until {@link ProcessHold.release}. It gets a hold pipe on
   * fd {@link IPC_HOLD_FD}. Its runtime may answer the handshake while it
   * waits (then nothing else before it is released); the handshake is timed
   * from the release.
   */
  readonly held?: boolean;
  /** How long a held process may take to say it runs; default {@link IPC_HOLD_TIMEOUT_MS}. */
  readonly holdTimeoutMs?: number;
}

/**
 * The hold of a process started `held`.
 *
 * @example
 * await proc.hold!.confirmed; // Node and the bootstrap run; nothing of the command does
 * proc.hold!.release();
 * proc.invoke(request);
 */
export interface ProcessHold {
  /**
   * Resolves once the process says it runs and waits; rejects with
   * `hold_failed` when it ends, closes its hold pipe, says anything else,
   * writes on its channel before its release, or says nothing within
   * {@link IPC_HOLD_TIMEOUT_MS}.
   */
  readonly confirmed: Promise<void>;
  /** Lets the command's program run and starts the handshake. Throws `invalid_state` unless confirmed and not yet released. */
  release(): void;
}

/**
 * A spawned command process and the host end of its authenticated channel.
 *
 * @example
 * const proc = spawnCommandProcess({ program: process.execPath, args: ["cmd.mjs"] });
 * proc.invoke({ invocationId: "i1", command: "acme.x/hello", inputs: {}, explicitInputIds: [], remainingMs: 5000, features: [] });
 * const completion = await proc.completion; // rejects with IpcError if the channel fails first
 */
export interface CommandProcess {
  /** The child process (pid, kill, exit events, stdio streams). */
  readonly child: ChildProcess;
  /** Resolves once the child has proved it holds the secret; rejects like {@link completion}. */
  readonly ready: Promise<void>;
  /**
   * The one accepted completion. Rejects with an {@link IpcError} when the
   * channel fails or closes first (`closed_before_completion` for an early close).
   */
  readonly completion: Promise<CompletionMessage>;
  /**
   * Resolves when the channel is closed: `undefined` after a completion and
   * an orderly end, otherwise the {@link IpcError} that closed it. Never rejects.
   */
  readonly closed: Promise<IpcError | undefined>;
  /** The process's hold, when it was started `held`. */
  readonly hold: ProcessHold | undefined;
  /** Sends the one invoke at once (the child reads it after its hello). Throws `invalid_state` or `invalid_message`. */
  invoke(request: InvokeRequest): void;
  /**
   * Asks the command to stop. Returns `false` (and sends nothing) when a cancel
   * was already sent, a completion was already accepted or the channel is
   * closed. Throws `invalid_state` before {@link invoke}.
   */
  cancel(cause: CancelCause): boolean;
}
