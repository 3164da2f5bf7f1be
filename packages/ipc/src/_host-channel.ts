// The host side of protocol `rukh.ipc/1` on one channel: its phases (hello,
// invoke, completion, close), the frames it sends and the ones it accepts,
// and the promises its caller watches. It moves no bytes of its own beyond
// writing frames; the spawn and the socket's events are wired in _host.ts.
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { IpcError } from "./_errors.js";
import { CHILD_TO_HOST, encodeFrame, FrameReader, HOST_TO_CHILD } from "./_frame.js";
import { type HostHold, holdOf } from "./_hold.js";
import type { InvokeRequest } from "./_host-model.js";
import { IPC_CHANNEL_FD, IPC_LIMITS } from "./_limits.js";
import {
  type CancelCause,
  type ChildMessage,
  type CompletionMessage,
  decodeMessage,
  encodeMessage,
  type HostMessage,
  type LogMessage,
  type ProgressMessage,
} from "./_messages.js";

type Phase = "handshake" | "ready" | "completed" | "closed";

/** What a {@link HostChannel} is opened with. */
export interface HostChannelOptions {
  readonly child: ChildProcess;
  /** The per-invocation secret every frame is authenticated with. */
  readonly secret: Buffer;
  /** The nonce the child's hello must echo. */
  readonly hostNonce: Buffer;
  readonly handshakeTimeoutMs: number;
  /** How long a held process may take to say it runs; `undefined` when it is not held. */
  readonly holdTimeoutMs: number | undefined;
  readonly onLog: ((entry: LogMessage) => void) | undefined;
  readonly onProgress: ((progress: ProgressMessage) => void) | undefined;
}

/**
 * One channel's state, from the secret to its close. Every way the channel
 * ends goes through {@link close}, which settles the caller's promises once.
 */
export class HostChannel {
  readonly ready: Promise<void>;
  readonly completion: Promise<CompletionMessage>;
  readonly closed: Promise<IpcError | undefined>;
  readonly hold: HostHold | undefined;
  private phase: Phase = "handshake";
  private sendSeq = 0;
  private invoked = false;
  private cancelled = false;
  private logs = 0;
  private progress = 0;
  private handshakeTimer: NodeJS.Timeout | undefined;
  private exitTimer: NodeJS.Timeout | undefined;
  private readonly socket: Socket;
  private readonly reader: FrameReader;
  private resolveReady!: () => void;
  private rejectReady!: (e: IpcError) => void;
  private resolveCompletion!: (c: CompletionMessage) => void;
  private rejectCompletion!: (e: IpcError) => void;
  private resolveClosed!: (e: IpcError | undefined) => void;

  constructor(private readonly options: HostChannelOptions) {
    this.socket = options.child.stdio[IPC_CHANNEL_FD] as Socket;
    this.reader = new FrameReader(options.secret, CHILD_TO_HOST);
    this.ready = new Promise<void>((res, rej) => {
      this.resolveReady = res;
      this.rejectReady = rej;
    });
    this.completion = new Promise<CompletionMessage>((res, rej) => {
      this.resolveCompletion = res;
      this.rejectCompletion = rej;
    });
    this.closed = new Promise<IpcError | undefined>((res) => {
      this.resolveClosed = res;
    });
    // The caller may legitimately watch only `closed`; these must not become unhandled rejections.
    this.ready.catch(() => {});
    this.completion.catch(() => {});
    this.hold =
      options.holdTimeoutMs === undefined
        ? undefined
        : holdOf(
            options.child,
            options.holdTimeoutMs,
            (error) => this.close(error),
            () => this.begin(),
          );
  }

  /** Whether the channel is closed; nothing more is read or settled after that. */
  get isClosed(): boolean {
    return this.phase === "closed";
  }

  /** Writes the secret and the host nonce, the first bytes on the channel. */
  open(): void {
    this.socket.write(Buffer.concat([this.options.secret, this.options.hostNonce]));
  }

  /** Starts the handshake's clock: at spawn, or when a held process is released. */
  begin(): void {
    if (this.phase !== "handshake") return;
    const ms = this.options.handshakeTimeoutMs;
    this.handshakeTimer = setTimeout(() => {
      this.close(
        new IpcError("handshake_timeout", `the child sent no valid hello within ${ms} ms`),
      );
    }, ms);
  }

  /** Stops waiting `ms` after the child exited, for a descendant may hold the channel open. */
  drainAfterExit(ms: number): void {
    if (this.phase === "closed") return;
    this.exitTimer = setTimeout(() => {
      // Whatever reached the channel before now is read first: a loop that
      // was starved past `ms` runs its timers before it polls the socket, and
      // the poll phase comes before an immediate. Else a completion already
      // written would be judged missing (`no_completion`) under load.
      setImmediate(() => this.close(undefined));
    }, ms);
  }

  /** Ends the channel: with `error`, or without one after a completion, else as closed early. */
  close(error: IpcError | undefined): void {
    if (this.phase === "closed") return;
    const before = this.phase;
    this.phase = "closed";
    clearTimeout(this.handshakeTimer);
    this.hold?.end();
    clearTimeout(this.exitTimer);
    this.socket?.destroy();
    const reason =
      error ??
      (before === "completed"
        ? undefined
        : new IpcError("closed_before_completion", "the channel closed before a completion"));
    if (reason !== undefined) {
      this.rejectReady(reason);
      this.rejectCompletion(reason);
    }
    this.resolveClosed(reason);
  }

  /** Reads a chunk of the channel: every whole frame in it is decoded and received in order. */
  receiveBytes(chunk: Buffer): void {
    if (this.phase === "closed") return;
    try {
      this.reader.append(chunk);
      for (let p = this.reader.next(); p !== undefined; p = this.reader.next()) {
        const message = decodeMessage(p, "child");
        // A held process's runtime may answer the handshake while it waits; nothing more.
        const hold = this.hold;
        if (
          hold !== undefined &&
          !hold.released &&
          (this.phase !== "handshake" || message.type !== "hello")
        ) {
          this.close(
            new IpcError("hold_failed", "the held process wrote on its channel before its release"),
          );
          return;
        }
        this.receive(message);
        if (this.isClosed) return;
      }
    } catch (error) {
      this.close(handshakeError(error, this.phase === "handshake"));
    }
  }

  /** The channel's end of stream: an error when it ends inside a frame. */
  ended(): void {
    this.close(
      this.reader.pending > 0
        ? new IpcError(
            "truncated_frame",
            `the channel ended inside a frame (${this.reader.pending} bytes)`,
          )
        : undefined,
    );
  }

  /** Sends the one invoke. */
  invoke(request: InvokeRequest): void {
    if (this.invoked)
      throw new IpcError("invalid_state", "invoke was already called on this channel");
    if (this.phase === "closed") throw new IpcError("invalid_state", "the channel is closed");
    this.send({ ...request, type: "invoke" });
    this.invoked = true;
  }

  /** Sends the one cancel; `false` when there is nothing left to cancel. */
  cancel(cause: CancelCause): boolean {
    if (!this.invoked) throw new IpcError("invalid_state", "cancel before invoke");
    if (this.cancelled || this.phase === "completed" || this.phase === "closed") return false;
    this.cancelled = true;
    this.send({ type: "cancel", cause });
    return true;
  }

  // Host frames need not wait for the hello: the socket pair already ensures
  // that only the child's end can read them, and frames are not confidential
  // from whoever holds that end anyway (see docs/ipc.md). Not waiting saves a
  // round trip on every invocation.
  private send(message: HostMessage): void {
    const payload = encodeMessage(message, "host"); // throws before a sequence number is used
    if (this.options.child.pid === undefined) return; // spawn failed; "error" reports it
    this.socket.write(encodeFrame(this.options.secret, HOST_TO_CHILD, this.sendSeq++, payload));
  }

  private receive(message: ChildMessage): void {
    if (this.phase === "handshake") {
      if (
        message.type !== "hello" ||
        message.hostNonce !== this.options.hostNonce.toString("hex")
      ) {
        throw new IpcError(
          "handshake_failed",
          "the first frame is not a hello echoing the host nonce",
        );
      }
      clearTimeout(this.handshakeTimer);
      this.phase = "ready";
      this.resolveReady();
      return;
    }
    if (this.phase === "completed") {
      throw message.type === "completion"
        ? new IpcError("duplicate_completion", "the child sent a second completion")
        : new IpcError("unexpected_message", `the child sent ${message.type} after its completion`);
    }
    switch (message.type) {
      case "log":
        if (++this.logs > IPC_LIMITS.maxLogFrames) {
          throw new IpcError(
            "diagnostics_limit",
            `more than ${IPC_LIMITS.maxLogFrames} log frames`,
          );
        }
        notify(this.options.onLog, message);
        return;
      case "progress":
        if (++this.progress > IPC_LIMITS.maxProgressFrames) {
          throw new IpcError(
            "diagnostics_limit",
            `more than ${IPC_LIMITS.maxProgressFrames} progress frames`,
          );
        }
        notify(this.options.onProgress, message);
        return;
      case "completion":
        if (!this.invoked)
          throw new IpcError("unexpected_message", "a completion arrived before invoke");
        this.phase = "completed";
        this.resolveCompletion(message);
        return;
      default:
        throw new IpcError(
          "unexpected_message",
          `the child sent ${message.type} after the handshake`,
        );
    }
  }
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
