import type { Socket } from "node:net";
import type { JsonObject, JsonValue } from "@rukh/json";
import { IpcError } from "./_errors.js";
import { CHILD_TO_HOST, encodeFrame, FrameReader, HOST_TO_CHILD } from "./_frame.js";
import {
  IPC_CHANNEL_ENV,
  IPC_CHANNEL_FD,
  IPC_LIMITS,
  IPC_NONCE_BYTES,
  IPC_PROTOCOL,
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
  type LogLevel,
} from "./_messages.js";

/**
 * Diagnostics for the owner's logs, sent to the host as `log` frames. Lines
 * over {@link IPC_LIMITS}`.maxTextBytes` are shortened; after
 * `maxLogFrames - 2` lines further lines are dropped and counted once.
 *
 * @example
 * ctx.log.info(`scanning ${files.length} files`);
 */
export interface CommandLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Everything a handler receives for one invocation. `I` is the type of the
 * inputs: the generated types of `ext types` give each command its own.
 *
 * @example
 * const handler: CommandHandler<{ readonly name: string }> = async (ctx) => {
 *   ctx.log.info(`greeting ${ctx.inputs.name}`);
 *   return textResult(`hello ${ctx.inputs.name}`);
 * };
 */
export interface CommandContext<I = JsonObject> {
  readonly invocationId: string;
  /** Canonical command identity `<extension id>/<command id>`. */
  readonly command: string;
  /** Typed inputs, already validated by the host, defaults applied. */
  readonly inputs: I;
  /** Ids of the inputs the caller supplied explicitly. */
  readonly explicitInputIds: readonly string[];
  readonly features: readonly string[];
  /** This process's `Date.now()` at which the deadline passes (advisory: the host enforces its own). */
  readonly deadline: number;
  /** Aborted when the host cancels or the deadline passes. */
  readonly signal: AbortSignal;
  /** Why {@link signal} was aborted, once it is. */
  readonly cancelCause: CancelCause | undefined;
  readonly log: CommandLogger;
  /** Reports progress (at most `maxProgressFrames` are sent; the rest are dropped). Never extends the deadline. */
  progress(progress: number, total?: number, message?: string): void;
}

/**
 * What a handler returns on success (build it with {@link textResult} or
 * {@link structuredResult}); returning nothing completes without a result.
 * `R` is the type of the command result.
 *
 * @example
 * const done: CommandSuccess = { commandResult: { kind: "text", text: "ok" }, effects: ["https://tracker.example/issues/42"] };
 */
export interface CommandSuccess<R = JsonValue> {
  readonly commandResult?: R;
  readonly effects?: readonly string[];
  readonly message?: string;
}

/**
 * One command's implementation, for inputs `I` and results `R`.
 *
 * @example
 * const handlers: Record<string, CommandHandler> = { "acme.hello/greet": () => textResult("hi") };
 */
export type CommandHandler<I = JsonObject, R = JsonValue> = (
  context: CommandContext<I>,
  // A handler that returns nothing (a function without a return) succeeds without a result.
  // biome-ignore lint/suspicious/noConfusingVoidType: `void` is what such a function returns
) => CommandSuccess<R> | undefined | void | Promise<CommandSuccess<R> | undefined | void>;

/**
 * The handler of a command that declares its result: it must return one of
 * type `R`. The generated types of `ext types` use it for every command of a
 * `rukh.extension/2` descriptor.
 *
 * @example
 * const greet: TypedHandler<{ readonly name: string }, TextResult> = (ctx) => textResult(`hi ${ctx.inputs.name}`);
 */
export type TypedHandler<I, R> = (context: CommandContext<I>) => ResultOf<R> | Promise<ResultOf<R>>;

type ResultOf<R> = CommandSuccess<R> & { readonly commandResult: R };

/**
 * A JSON value as a handler builds it (read-only arrays and objects allowed,
 * `undefined` for an absent member): what {@link structuredResult} takes.
 */
export type JsonData =
  | null
  | boolean
  | number
  | string
  | readonly JsonData[]
  | { readonly [key: string]: JsonData | undefined };

/** A command-result/1 text result. */
export interface TextResult {
  readonly kind: "text";
  readonly text: string;
}

/** A command-result/1 structured result whose data has type `D`. */
export interface StructuredResult<D> {
  readonly kind: "structured";
  readonly data: D;
}

/**
 * Any handler, whatever its input and result types: a context whose inputs
 * are `never` can be given to every handler.
 */
type AnyHandler = (
  context: CommandContext<never>,
  // biome-ignore lint/suspicious/noConfusingVoidType: handlers may return nothing (see CommandHandler)
) =>
  | CommandSuccess<unknown>
  | undefined
  | void
  | Promise<CommandSuccess<unknown> | undefined | void>;

/**
 * Options of {@link runCommandProcess}.
 *
 * @example
 * const options: RunCommandProcessOptions = { handlers: { "acme.hello/greet": () => textResult("hi") } };
 */
export interface RunCommandProcessOptions {
  /** One handler per canonical command identity this program implements. */
  readonly handlers: Readonly<Record<string, AnyHandler>>;
}

/** Extras a result helper can attach. */
export interface ResultExtras {
  readonly effects?: readonly string[];
  readonly message?: string;
}

/**
 * A failure the command reports deliberately: it becomes a `command_failed`
 * completion carrying `message`, which must be safe to show to the caller.
 * Any other thrown value makes the process exit non-zero without a completion.
 *
 * @example
 * if (!exists(path)) throw new CommandFailure(`no such file: ${path}`);
 */
export class CommandFailure extends Error {
  override readonly name = "CommandFailure";
  readonly commandResult: JsonValue | undefined;
  readonly effects: readonly string[] | undefined;

  constructor(
    message: string,
    options?: ResultExtras & { readonly commandResult?: JsonValue; readonly cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.commandResult = options?.commandResult;
    this.effects = options?.effects;
  }
}

/**
 * A success carrying a command-result/1 text result.
 *
 * @example
 * return textResult("3 files changed");
 */
export function textResult(
  text: string,
  extras?: ResultExtras,
): CommandSuccess<TextResult> & {
  readonly commandResult: TextResult;
} {
  return { ...extras, commandResult: { kind: "text", text } };
}

/**
 * A success carrying a command-result/1 structured result (`data` must match
 * the command's declared schema; the host validates it).
 *
 * @example
 * return structuredResult({ changed: 3, files: ["a.ts"] });
 */
export function structuredResult<D extends JsonData>(
  data: NoInfer<D>,
  extras?: ResultExtras,
): CommandSuccess<StructuredResult<D>> & { readonly commandResult: StructuredResult<D> } {
  return { ...extras, commandResult: { kind: "structured", data } };
}

/** Exit status after a handler threw something other than {@link CommandFailure}, or had no handler. */
const EXIT_HANDLER_FAILED = 1;
/** Exit status after a protocol or channel failure, or when started without a host. */
const EXIT_CHANNEL_FAILED = 2;
const EXIT_GRACE_MS = 50;
const PREAMBLE_BYTES = IPC_SECRET_BYTES + IPC_NONCE_BYTES;
const AUTHOR_LOG_LINES = IPC_LIMITS.maxLogFrames - 2;

/**
 * Runs this process as a managed command: reads the secret from the channel
 * on fd 3, completes the handshake, runs the handler the host invokes and
 * sends its completion, then ends the process (0 after a completion, 1 when
 * the handler threw anything but {@link CommandFailure}, 2 on a channel or
 * protocol failure or when not started by a host). The returned promise
 * settles once the last frame is written, so a top-level `await` of it is
 * never left pending (Node 22 and later exit 13 when one is); whatever the
 * handler left running gets a short grace before the process exits anyway. It removes `RUKH_IPC_FD`
 * from `process.env` before anything else, and the secret never enters the
 * environment, so processes the handler spawns learn neither.
 *
 * @example
 * import { runCommandProcess, textResult } from "@rukh/ipc";
 * await runCommandProcess({
 *   handlers: { "acme.hello/greet": async (ctx) => textResult(`hello ${ctx.inputs.name}`) },
 * });
 */
export function runCommandProcess(options: RunCommandProcessOptions): Promise<void> {
  const channel = opened ?? openChannel();
  opened = undefined;
  channel.attach(options.handlers);
  return channel.finished;
}

/** A channel opened ahead of the program's handlers (by {@link prepareCommandProcess}). */
let opened: ChildChannel | undefined;

/**
 * Opens this process's channel and answers the host's handshake before the
 * command's program, and so its handlers, are loaded: what a host's hold
 * bootstrap (`@rukh/ipc/held`) calls while a process waits for its call.
 * The program's own {@link runCommandProcess} then takes the channel as it
 * is; an invoke that arrived meanwhile runs once its handlers are there.
 * Programs never need to call it.
 *
 * @example
 * prepareCommandProcess(); // in a bootstrap, before the program is loaded
 */
export function prepareCommandProcess(): void {
  opened ??= openChannel();
}

/** The channel on fd 3, with the environment variable that names it removed. */
function openChannel(): ChildChannel {
  const announced = process.env[IPC_CHANNEL_ENV];
  delete process.env[IPC_CHANNEL_ENV];
  if (announced !== String(IPC_CHANNEL_FD)) {
    return fatal(
      new IpcError(
        "not_managed",
        `${IPC_CHANNEL_ENV} is not "${IPC_CHANNEL_FD}": this program must be started by a Rukh host`,
      ),
    );
  }
  let socket: Socket;
  try {
    const { Socket } = process.getBuiltinModule("node:net");
    socket = new Socket({ fd: IPC_CHANNEL_FD, readable: true, writable: true });
  } catch (error) {
    return fatal(
      new IpcError("not_managed", `fd ${IPC_CHANNEL_FD} is not a usable channel`, { cause: error }),
    );
  }
  return new ChildChannel(socket);
}

function fatal(error: IpcError): never {
  process.stderr.write(`rukh ipc: ${error.code}: ${error.message}\n`);
  process.exit(EXIT_CHANNEL_FAILED);
}

class ChildChannel {
  #socket: Socket;
  /** The program's handlers, once it gave them; an invoke waits for them. */
  #handlers: Readonly<Record<string, AnyHandler>> | undefined;
  #waiting: InvokeMessage | undefined;
  #preamble: Buffer[] = [];
  #preambleBytes = 0;
  #secret: Buffer | undefined;
  #reader: FrameReader | undefined;
  #sendSeq = 0;
  #state: "preamble" | "invoke" | "running" | "done" = "preamble";
  #controller = new AbortController();
  #cause: CancelCause | undefined;
  /** Whether the host sent its one cancel. */
  #cancelled = false;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #logLines = 0;
  #droppedLines = 0;
  #progressFrames = 0;
  #finish!: () => void;
  /** Settles once the last frame is written (what runCommandProcess returns). */
  readonly finished = new Promise<void>((resolve) => {
    this.#finish = resolve;
  });

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    socket.on("end", () =>
      this.#fail(
        (this.#reader?.pending ?? 0) > 0
          ? new IpcError("truncated_frame", "the host closed the channel inside a frame")
          : new IpcError("closed_before_completion", "the host closed the channel"),
      ),
    );
    socket.on("error", (error) =>
      this.#fail(
        new IpcError("channel_error", `channel I/O failed: ${error.message}`, { cause: error }),
      ),
    );
  }

  #onData(chunk: Buffer): void {
    if (this.#state === "done") return;
    try {
      if (this.#secret === undefined) {
        this.#preamble.push(chunk);
        this.#preambleBytes += chunk.length;
        if (this.#preambleBytes < PREAMBLE_BYTES) return;
        const all = Buffer.concat(this.#preamble);
        this.#preamble = [];
        this.#secret = Buffer.from(all.subarray(0, IPC_SECRET_BYTES));
        const hostNonce = all.subarray(IPC_SECRET_BYTES, PREAMBLE_BYTES).toString("hex");
        this.#reader = new FrameReader(this.#secret, HOST_TO_CHILD);
        this.#state = "invoke";
        this.#send({ type: "hello", protocol: IPC_PROTOCOL, hostNonce });
        chunk = all.subarray(PREAMBLE_BYTES);
        if (chunk.length === 0) return;
      }
      const reader = this.#reader!;
      reader.append(chunk);
      for (let p = reader.next(); p !== undefined; p = reader.next()) {
        this.#receive(decodeMessage(p, "host"));
        if ((this.#state as string) === "done") return;
      }
    } catch (error) {
      this.#fail(
        error instanceof IpcError
          ? error
          : new IpcError("channel_error", String(error), { cause: error }),
      );
    }
  }

  /** Gives the channel the program's handlers; an invoke that came first runs now. */
  attach(handlers: Readonly<Record<string, AnyHandler>>): void {
    if (this.#handlers !== undefined)
      fatal(new IpcError("invalid_state", "runCommandProcess was called twice"));
    this.#handlers = handlers;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting !== undefined && this.#state === "running") void this.#run(waiting);
  }

  #receive(message: HostMessage): void {
    if (this.#state === "invoke" && message.type === "invoke") {
      this.#state = "running";
      if (this.#handlers === undefined) this.#waiting = message;
      else void this.#run(message);
    } else if (this.#state === "running" && message.type === "cancel" && !this.#cancelled) {
      // One cancel may come at any time before the completion, even after
      // this process's own deadline passed (the first cause is kept).
      this.#cancelled = true;
      this.#abort(message.cause);
    } else {
      throw new IpcError("unexpected_message", `the host sent ${message.type} out of order`);
    }
  }

  #abort(cause: CancelCause): void {
    if (this.#cause !== undefined) return;
    this.#cause = cause;
    clearTimeout(this.#deadlineTimer);
    const name = cause === "deadline" ? "TimeoutError" : "AbortError";
    this.#controller.abort(new DOMException(`invocation cancelled (${cause})`, name));
  }

  async #run(invoke: InvokeMessage): Promise<void> {
    const handlers = this.#handlers!;
    const handler = Object.hasOwn(handlers, invoke.command) ? handlers[invoke.command] : undefined;
    if (handler === undefined) {
      this.#log("error", `no handler for command ${invoke.command}`, true);
      return this.#exit(EXIT_HANDLER_FAILED);
    }
    this.#deadlineTimer = setTimeout(() => this.#abort("deadline"), invoke.remainingMs);
    this.#deadlineTimer.unref();
    const self = this;
    const context: CommandContext = {
      invocationId: invoke.invocationId,
      command: invoke.command,
      inputs: invoke.inputs,
      explicitInputIds: invoke.explicitInputIds,
      features: invoke.features,
      deadline: Date.now() + invoke.remainingMs,
      signal: this.#controller.signal,
      get cancelCause() {
        return self.#cause;
      },
      log: {
        debug: (m) => this.#log("debug", m, false),
        info: (m) => this.#log("info", m, false),
        warn: (m) => this.#log("warn", m, false),
        error: (m) => this.#log("error", m, false),
      },
      progress: (progress, total, message) => this.#progress(progress, total, message),
    };
    let completion: CompletionMessage;
    try {
      // The host validated the inputs against the descriptor the handler's types come from.
      const success = ((await handler(context as CommandContext<never>)) ?? {}) as CommandSuccess;
      completion = completionOf("succeeded", success);
    } catch (error) {
      if (!(error instanceof CommandFailure)) {
        const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
        this.#log("error", `handler failed: ${detail}`, true);
        return this.#exit(EXIT_HANDLER_FAILED);
      }
      completion = completionOf("command_failed", {
        message: error.message,
        ...(error.commandResult === undefined ? {} : { commandResult: error.commandResult }),
        ...(error.effects === undefined ? {} : { effects: error.effects }),
      });
    }
    if (this.#state === "done") return;
    try {
      this.#flushDropped();
      this.#send(completion);
    } catch (error) {
      this.#log("error", `cannot send the completion: ${(error as Error).message}`, true);
      return this.#exit(EXIT_HANDLER_FAILED);
    }
    this.#exit(0);
  }

  #log(level: LogLevel, message: string, reserved: boolean): void {
    if (this.#state === "done" || this.#secret === undefined) return;
    if (!reserved && this.#logLines >= AUTHOR_LOG_LINES) {
      this.#droppedLines++;
      return;
    }
    if (!reserved) this.#logLines++;
    this.#send({ type: "log", level, message: clip(String(message)) });
  }

  #flushDropped(): void {
    if (this.#droppedLines === 0) return;
    this.#send({
      type: "log",
      level: "warn",
      message: `${this.#droppedLines} log lines dropped (limit ${AUTHOR_LOG_LINES})`,
    });
    this.#droppedLines = 0;
  }

  #progress(progress: number, total?: number, message?: string): void {
    if (this.#state !== "running" || this.#progressFrames >= IPC_LIMITS.maxProgressFrames) return;
    this.#progressFrames++;
    this.#send({
      type: "progress",
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message: clip(message) }),
    });
  }

  #send(message: ChildMessage): void {
    const payload = encodeMessage(message, "child");
    this.#socket.write(encodeFrame(this.#secret!, CHILD_TO_HOST, this.#sendSeq++, payload));
  }

  #fail(error: IpcError): void {
    if (this.#state === "done") return;
    this.#abort("owner");
    process.stderr.write(`rukh ipc: ${error.code}: ${error.message}\n`);
    this.#state = "done";
    process.exit(EXIT_CHANNEL_FAILED);
  }

  #exit(code: number): void {
    this.#state = "done";
    clearTimeout(this.#deadlineTimer);
    process.exitCode = code;
    // Once the last frame is flushed, the process ends as soon as nothing
    // else runs (settling runCommandProcess, so no top-level await is left
    // pending); a handler that left timers or sockets behind must not keep
    // it alive for long past its completion.
    this.#socket.end(() => {
      setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
      this.#finish();
    });
  }
}

function completionOf(
  outcome: CompletionMessage["outcome"],
  from: CommandSuccess,
): CompletionMessage {
  return {
    type: "completion",
    outcome,
    ...(from.commandResult === undefined ? {} : { commandResult: from.commandResult }),
    ...(from.effects === undefined ? {} : { effects: from.effects }),
    ...(from.message === undefined ? {} : { message: clip(from.message) }),
  };
}

/** Shortens text to the protocol's text limit at a character boundary, marking the cut. */
function clip(text: string): string {
  const wellFormed = text.toWellFormed();
  const bytes = Buffer.from(wellFormed, "utf8");
  const max = IPC_LIMITS.maxTextBytes;
  if (bytes.length <= max) return wellFormed;
  let end = max - 3;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString("utf8")}…`;
}
