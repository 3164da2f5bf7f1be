import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { IpcError } from "./_errors.js";
import { CHILD_TO_HOST, encodeFrame, FrameReader, HOST_TO_CHILD } from "./_frame.js";
import {
  IPC_CHANNEL_ENV,
  IPC_CHANNEL_FD,
  IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS,
  IPC_HOLD_FD,
  IPC_HOLD_TIMEOUT_MS,
  IPC_LIMITS,
  IPC_NONCE_BYTES,
  IPC_SECRET_BYTES,
} from "./_limits.js";
import {
  type CancelCause,
  type ChildMessage,
  type CompletionMessage,
  decodeMessage,
  encodeMessage,
  type HostMessage,
  type InvokeMessage,
  type LogMessage,
  type ProgressMessage,
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

let devNull: number | undefined;

/**
 * The stdio array of a spawn in which every listed descriptor above the
 * given ones is `/dev/null`: the only way, without a launcher, to keep an
 * inherited descriptor of this process out of a child.
 */
export function shadowedStdio<T>(
  base: readonly T[],
  shadowFds: readonly number[],
): (T | number | "ignore")[] {
  const out: (T | number | "ignore")[] = [...base];
  const extra = shadowFds.filter((fd) => fd >= base.length);
  if (extra.length === 0) return out;
  devNull ??= process.getBuiltinModule("node:fs").openSync("/dev/null", "r+");
  const top = Math.max(...extra);
  while (out.length <= top) out.push("ignore");
  for (const fd of extra) out[fd] = devNull;
  return out;
}

type Phase = "handshake" | "ready" | "completed" | "closed";

/**
 * Spawns a managed command with a private channel on its fd 3, writes the
 * per-invocation secret as the first bytes on that channel, and runs the host
 * side of protocol `rukh.ipc/1`. Killing the process (or its group) stays with
 * the caller; this only reports what the channel saw.
 *
 * @example
 * const proc = spawnCommandProcess({ program: process.execPath, args: ["dist/cmd.js"], detached: true });
 * proc.invoke({ invocationId: "i1", command: "acme.x/hello", inputs: { name: "Ada" },
 *   explicitInputIds: ["name"], remainingMs: 30_000, features: [] });
 * const done = await proc.completion; // { type: "completion", outcome: "succeeded", commandResult: … }
 */
export function spawnCommandProcess(options: SpawnCommandProcessOptions): CommandProcess {
  const stdio = options.stdio ?? ["ignore", "pipe", "pipe"];
  const secret = randomBytes(IPC_SECRET_BYTES);
  const hostNonce = randomBytes(IPC_NONCE_BYTES);
  const env = { ...(options.env ?? process.env), [IPC_CHANNEL_ENV]: String(IPC_CHANNEL_FD) };
  // Loaded on first use so that a command process, which imports this package
  // for its runtime only, never pays for child_process at startup.
  const { spawn } = process.getBuiltinModule("node:child_process");
  const child = spawn(options.program, options.args ?? [], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env,
    stdio: shadowedStdio(
      options.held === true
        ? [stdio[0], stdio[1], stdio[2], "pipe", "pipe"]
        : [stdio[0], stdio[1], stdio[2], "pipe"],
      options.shadowFds ?? [],
    ),
    detached: options.detached ?? false,
    shell: false,
    windowsHide: true,
  });
  const channel = child.stdio[IPC_CHANNEL_FD] as Socket;
  const reader = new FrameReader(secret, CHILD_TO_HOST);

  let phase: Phase = "handshake";
  let sendSeq = 0;
  let invoked = false;
  let cancelled = false;
  let logs = 0;
  let progress = 0;
  let exitTimer: NodeJS.Timeout | undefined;

  let resolveReady!: () => void;
  let rejectReady!: (e: IpcError) => void;
  const ready = new Promise<void>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  let resolveCompletion!: (c: CompletionMessage) => void;
  let rejectCompletion!: (e: IpcError) => void;
  const completion = new Promise<CompletionMessage>((res, rej) => {
    resolveCompletion = res;
    rejectCompletion = rej;
  });
  let resolveClosed!: (e: IpcError | undefined) => void;
  const closed = new Promise<IpcError | undefined>((res) => {
    resolveClosed = res;
  });
  // The caller may legitimately watch only `closed`; these must not become unhandled rejections.
  ready.catch(() => {});
  completion.catch(() => {});

  let handshakeTimer: NodeJS.Timeout | undefined;
  /** Starts the handshake's clock: at spawn, or when a held process is released. */
  function begin(): void {
    if (phase !== "handshake") return;
    handshakeTimer = setTimeout(() => {
      close(
        new IpcError(
          "handshake_timeout",
          `the child sent no valid hello within ${options.handshakeTimeoutMs ?? IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS} ms`,
        ),
      );
    }, options.handshakeTimeoutMs ?? IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS);
  }
  const hold =
    options.held === true
      ? holdOf(child, options.holdTimeoutMs ?? IPC_HOLD_TIMEOUT_MS, (error) => close(error), begin)
      : undefined;

  function close(error: IpcError | undefined): void {
    if (phase === "closed") return;
    const before = phase;
    phase = "closed";
    clearTimeout(handshakeTimer);
    hold?.end();
    clearTimeout(exitTimer);
    channel?.destroy();
    const reason =
      error ??
      (before === "completed"
        ? undefined
        : new IpcError("closed_before_completion", "the channel closed before a completion"));
    if (reason !== undefined) {
      rejectReady(reason);
      rejectCompletion(reason);
    }
    resolveClosed(reason);
  }

  // Host frames need not wait for the hello: the socket pair already ensures
  // that only the child's end can read them, and frames are not confidential
  // from whoever holds that end anyway (see docs/ipc.md). Not waiting saves a
  // round trip on every invocation.
  function send(message: HostMessage): void {
    const payload = encodeMessage(message, "host"); // throws before a sequence number is used
    if (child.pid === undefined) return; // spawn failed; "error" reports it
    channel.write(encodeFrame(secret, HOST_TO_CHILD, sendSeq++, payload));
  }

  function receive(message: ChildMessage): void {
    if (phase === "handshake") {
      if (message.type !== "hello" || message.hostNonce !== hostNonce.toString("hex")) {
        throw new IpcError(
          "handshake_failed",
          "the first frame is not a hello echoing the host nonce",
        );
      }
      clearTimeout(handshakeTimer);
      phase = "ready";
      resolveReady();
      return;
    }
    if (phase === "completed") {
      throw message.type === "completion"
        ? new IpcError("duplicate_completion", "the child sent a second completion")
        : new IpcError("unexpected_message", `the child sent ${message.type} after its completion`);
    }
    switch (message.type) {
      case "log":
        if (++logs > IPC_LIMITS.maxLogFrames) {
          throw new IpcError(
            "diagnostics_limit",
            `more than ${IPC_LIMITS.maxLogFrames} log frames`,
          );
        }
        notify(options.onLog, message);
        return;
      case "progress":
        if (++progress > IPC_LIMITS.maxProgressFrames) {
          throw new IpcError(
            "diagnostics_limit",
            `more than ${IPC_LIMITS.maxProgressFrames} progress frames`,
          );
        }
        notify(options.onProgress, message);
        return;
      case "completion":
        if (!invoked)
          throw new IpcError("unexpected_message", "a completion arrived before invoke");
        phase = "completed";
        resolveCompletion(message);
        return;
      default:
        throw new IpcError(
          "unexpected_message",
          `the child sent ${message.type} after the handshake`,
        );
    }
  }

  channel.on("data", (chunk: Buffer) => {
    if (phase === "closed") return;
    try {
      reader.append(chunk);
      for (let p = reader.next(); p !== undefined; p = reader.next()) {
        const message = decodeMessage(p, "child");
        // A held process's runtime may answer the handshake while it waits; nothing more.
        if (
          hold !== undefined &&
          !hold.released &&
          (phase !== "handshake" || message.type !== "hello")
        )
          return close(
            new IpcError("hold_failed", "the held process wrote on its channel before its release"),
          );
        receive(message);
        if ((phase as Phase) === "closed") return;
      }
    } catch (error) {
      close(handshakeError(error, phase === "handshake"));
    }
  });
  channel.on("end", () => {
    close(
      reader.pending > 0
        ? new IpcError(
            "truncated_frame",
            `the channel ended inside a frame (${reader.pending} bytes)`,
          )
        : undefined,
    );
  });
  channel.on("error", (error) => {
    close(new IpcError("channel_error", `channel I/O failed: ${error.message}`, { cause: error }));
  });
  channel.on("close", () => close(undefined));
  child.on("error", (error) => {
    close(
      new IpcError("spawn_failed", `cannot run ${options.program}: ${error.message}`, {
        cause: error,
      }),
    );
  });
  // A descendant that inherited the channel can keep it open after the child
  // exits; give buffered frames a moment to arrive, then stop waiting.
  child.on("exit", () => {
    if (phase !== "closed") exitTimer = setTimeout(() => close(undefined), EXIT_DRAIN_MS);
  });

  // Without a pid the spawn failed; its "error" event reports spawn_failed.
  if (child.pid !== undefined) {
    channel.write(Buffer.concat([secret, hostNonce]));
    if (hold === undefined) begin();
  }

  return {
    child,
    ready,
    completion,
    closed,
    hold: hold?.api,
    invoke(request) {
      if (invoked) throw new IpcError("invalid_state", "invoke was already called on this channel");
      if (phase === "closed") throw new IpcError("invalid_state", "the channel is closed");
      send({ ...request, type: "invoke" });
      invoked = true;
    },
    cancel(cause) {
      if (!invoked) throw new IpcError("invalid_state", "cancel before invoke");
      if (cancelled || phase === "completed" || phase === "closed") return false;
      cancelled = true;
      send({ type: "cancel", cause });
      return true;
    },
  };
}

const EXIT_DRAIN_MS = 200;

/**
 * The host's end of a hold pipe: `confirmed` once the process says "R",
 * `release()` answers "G" and ends the pipe. Whatever else happens on the
 * pipe before the release (it ends, says more, the process exits, nothing
 * comes in time) fails the hold and closes the process's channel.
 */
function holdOf(
  child: ChildProcess,
  timeoutMs: number,
  fail: (error: IpcError) => void,
  begin: () => void,
): { api: ProcessHold; readonly released: boolean; end(): void } {
  const pipe = child.stdio[IPC_HOLD_FD] as Socket | null;
  let state: "waiting" | "confirmed" | "released" | "ended" = "waiting";
  let confirm!: () => void;
  let reject!: (e: IpcError) => void;
  const confirmed = new Promise<void>((res, rej) => {
    confirm = res;
    reject = rej;
  });
  confirmed.catch(() => {});
  const failed = (why: string) => {
    if (state === "released" || state === "ended") return;
    state = "ended";
    clearTimeout(timer);
    const error = new IpcError("hold_failed", why);
    reject(error);
    pipe?.destroy();
    fail(error);
  };
  const timer = setTimeout(
    () => failed(`the held process did not say it runs within ${timeoutMs} ms`),
    timeoutMs,
  );
  pipe?.on("data", (chunk: Buffer) => {
    if (state === "waiting" && chunk.length === 1 && chunk[0] === 0x52) {
      state = "confirmed";
      clearTimeout(timer);
      confirm();
    } else failed("the held process said something other than that it runs");
  });
  pipe?.on("end", () => failed("the held process closed its hold pipe"));
  pipe?.on("error", (e) => failed(`the hold pipe failed: ${e.message}`));
  child.once("exit", () => failed("the held process ended before its release"));
  return {
    api: {
      confirmed,
      release() {
        if (state !== "confirmed")
          throw new IpcError(
            "invalid_state",
            `the process cannot be released: its hold is ${state}`,
          );
        state = "released";
        pipe?.end("G");
        begin();
      },
    },
    get released() {
      return state === "released";
    },
    end() {
      clearTimeout(timer);
      if (state === "waiting" || state === "confirmed") {
        state = "ended";
        reject(new IpcError("hold_failed", "the channel closed before the release"));
      }
      pipe?.destroy();
    },
  };
}

function notify<T>(listener: ((value: T) => void) | undefined, value: T): void {
  if (listener === undefined) return;
  try {
    listener(value);
  } catch {
    // A diagnostics sink must not be able to break the protocol state machine.
  }
}

function handshakeError(error: unknown, handshaking: boolean): IpcError {
  if (!(error instanceof IpcError)) {
    return new IpcError("channel_error", `unexpected failure: ${String(error)}`, { cause: error });
  }
  if (handshaking && error.code === "bad_mac") {
    return new IpcError(
      "handshake_failed",
      "the child's hello is not authenticated with this invocation's secret",
      { cause: error },
    );
  }
  return error;
}
