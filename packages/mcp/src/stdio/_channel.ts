import type { Readable, Writable } from "node:stream";
import type { McpLimits } from "../hosting/index.js";

/**
 * How far the outgoing queue may grow before the channel closes: four times
 * its byte bound, or four times its message bound plus every request the
 * host may hold (each answers once, even while reading waits).
 */
const QUEUE_HARD_FACTOR = 4;

/** Why a channel stopped. */
export type ChannelCloseReason =
  | "eof"
  | "input_error"
  | "output_error"
  | "partial_read_timeout"
  | "blocked_write_timeout"
  | "queue_full"
  | "host_closed";

export interface ChannelEvents {
  /** One complete line (without its newline), at most `messageMaxBytes` long. */
  line(bytes: Buffer): void;
  /** A line longer than `messageMaxBytes` ended; its bytes were discarded. */
  oversize(bytes: number): void;
  /** Input ended (end of file or a read error); writing still works. */
  ended(reason: ChannelCloseReason): void;
  /** The channel closed itself because a bound or deadline was breached or output failed. */
  broken(reason: ChannelCloseReason): void;
  /** Whether the host has as much work in hand as it takes: reading waits until {@link StdioChannel.resumeReading}. */
  busy(): boolean;
  /**
   * A whole line read while reading waits, offered ahead of the lines held
   * before it: `true` when the host acted on it at once (a cancellation of
   * a call in flight, whose order among the held lines cannot matter), and
   * it is then not delivered again; `false` keeps it in its place.
   */
  control?(line: Buffer): boolean;
}

/** What a {@link StdioChannel} reads from, writes to, is bounded by and reports to. */
export interface StdioChannelOptions {
  readonly input: Readable;
  readonly output: Writable;
  /** Writes a chunk in place of `output.write` (default `output.write`). */
  readonly write?: ((chunk: Buffer, cb: (err?: Error | null) => void) => unknown) | undefined;
  readonly limits: McpLimits;
  readonly events: ChannelEvents;
}

/**
 * Newline-delimited framing over a byte stream pair, with hard bounds: a line
 * is never buffered beyond the message limit, an incomplete line has a fixed
 * deadline from its first byte, and a write that makes no progress for the
 * same deadline closes the channel. The outgoing queue applies backpressure:
 * when it holds its bound of messages or bytes, or the host is busy, the
 * channel stops reading (the rest of the chunk in hand waits, and the input
 * stream is paused) and reads on once the queue has drained to half its
 * bound. While it waits it still reads ahead, up to one message's bytes,
 * and offers each whole line to the host's `control` first: a cancellation
 * of a call in flight is acted on at once, so congestion never holds it up;
 * every other line keeps its place. Only a queue far past its bound (see `QUEUE_HARD_FACTOR`) — output
 * that work already in hand produced while the reader made progress too
 * slowly — closes it (`queue_full`). Nothing is skipped silently: every discarded line is
 * reported to the host, which answers it.
 */
export class StdioChannel {
  readonly #input: Readable;
  readonly #write: (chunk: Buffer, cb: (err?: Error | null) => void) => unknown;
  readonly #limits: McpLimits;
  readonly #events: ChannelEvents;
  #parts: Buffer[] = [];
  #partBytes = 0;
  #discarding = 0;
  #lineTimer: NodeJS.Timeout | undefined;
  #inFlight: { started: number; bytes: number }[] = [];
  #queuedBytes = 0;
  #writeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #inputDone = false;
  /** Reading waits for the queue to drain or the host to finish work; `#held` is the unread rest of a chunk. */
  #waiting = false;
  #held: Buffer | undefined;
  /** How far into `#held` lines were offered to `control`; whether its first line began before reading waited. */
  #heldScanned = 0;
  #heldMidLine = false;
  #endHeld = false;
  /** When a write last completed (or the queue last became non-empty): the write deadline counts from here. */
  #progress = 0;
  #drainWaiters: (() => void)[] = [];
  readonly #onData = (chunk: Buffer) => this.#read(chunk);
  readonly #onEnd = () => this.#finishInput("eof");
  readonly #onInputError = () => this.#finishInput("input_error");
  readonly #onOutputError = () => this.close("output_error");

  constructor({ input, output, write, limits, events }: StdioChannelOptions) {
    this.#input = input;
    this.#write = write ?? ((chunk, cb) => output.write(chunk, cb));
    this.#limits = limits;
    this.#events = events;
    input.on("data", this.#onData);
    input.on("end", this.#onEnd);
    input.on("error", this.#onInputError);
    this.#output = output;
    output.on("error", this.#onOutputError);
    input.resume();
  }

  readonly #output: Writable;

  get isClosed(): boolean {
    return this.#closed;
  }

  #read(chunk: Buffer): void {
    if (this.#closed || this.#inputDone) return;
    if (this.#waiting) {
      // Read while reading waits: kept, in order, for when reading resumes.
      this.#held =
        this.#held === undefined ? Buffer.from(chunk) : Buffer.concat([this.#held, chunk]);
      this.#readAhead();
      return;
    }
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.#discarding > 0) this.#discarding += piece.length;
      else if (this.#partBytes + piece.length > this.#limits.messageMaxBytes) {
        this.#discarding = this.#partBytes + piece.length;
        this.#parts = [];
        this.#partBytes = 0;
      } else if (piece.length > 0) {
        // Copy: the stream may reuse its buffer, and a partial line must outlive it.
        this.#parts.push(nl === -1 ? Buffer.from(piece) : piece);
        this.#partBytes += piece.length;
      }
      if (nl === -1) {
        if (this.#lineTimer === undefined && (this.#partBytes > 0 || this.#discarding > 0))
          this.#lineTimer = setTimeout(
            () => this.close("partial_read_timeout"),
            this.#limits.ioDeadlineMs,
          );
        return;
      }
      start = nl + 1;
      clearTimeout(this.#lineTimer);
      this.#lineTimer = undefined;
      if (this.#discarding > 0) {
        const n = this.#discarding;
        this.#discarding = 0;
        this.#events.oversize(n);
      } else {
        const line = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
        this.#parts = [];
        this.#partBytes = 0;
        this.#events.line(line);
      }
      if (this.#closed) return;
      if (this.#full()) {
        if (start < chunk.length) this.#held = Buffer.from(chunk.subarray(start));
        // Already waiting (an answer filled the queue as the line was read): its rest is read ahead now.
        if (this.#waiting) this.#readAhead();
        else this.#wait();
        return;
      }
    }
  }

  /** Whether reading must wait: the queue holds its bound, or the host has its fill of work. */
  #full(): boolean {
    return (
      this.#inFlight.length >= this.#limits.queueMaxMessages ||
      this.#queuedBytes >= this.#limits.queueMaxBytes ||
      this.#events.busy()
    );
  }

  #wait(): void {
    if (this.#waiting) return;
    this.#waiting = true;
    this.#heldScanned = 0;
    // A line begun before the wait is not whole in `#held`: it is never offered.
    this.#heldMidLine = this.#partBytes > 0 || this.#discarding > 0;
    this.#readAhead();
    // The incomplete-line deadline counts only while the channel reads.
    clearTimeout(this.#lineTimer);
    this.#lineTimer = undefined;
  }

  /**
   * Offers each whole line of `#held` not yet offered to the host's
   * `control`, taking out those it acted on; past one message's bytes held,
   * the input stream is paused (what the client sends then waits in the pipe).
   */
  #readAhead(): void {
    const control = this.#events.control;
    let held = this.#held;
    let at = this.#heldScanned;
    if (control !== undefined && held !== undefined)
      for (let nl = held.indexOf(10, at); nl !== -1; nl = held.indexOf(10, at)) {
        if (this.#heldMidLine) this.#heldMidLine = false;
        else if (nl - at <= this.#limits.messageMaxBytes && control(held.subarray(at, nl))) {
          held = Buffer.concat([held.subarray(0, at), held.subarray(nl + 1)]);
          continue;
        }
        at = nl + 1;
      }
    this.#held = held !== undefined && held.length > 0 ? held : undefined;
    this.#heldScanned = this.#held === undefined ? 0 : at;
    if (control === undefined || (this.#held?.length ?? 0) >= this.#limits.messageMaxBytes)
      this.#input.pause();
  }

  /**
   * Reads on if reading waits and there is room again: the queue at most half
   * its bound and the host not busy. The host calls it when work finishes.
   */
  resumeReading(): void {
    if (!this.#waiting || this.#closed || this.#inputDone) return;
    if (
      this.#inFlight.length > this.#limits.queueMaxMessages / 2 ||
      this.#queuedBytes > this.#limits.queueMaxBytes / 2 ||
      this.#events.busy()
    )
      return;
    this.#waiting = false;
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) this.#read(held);
    if (this.#waiting || this.#closed || this.#inputDone) return;
    if (this.#lineTimer === undefined && (this.#partBytes > 0 || this.#discarding > 0))
      this.#lineTimer = setTimeout(
        () => this.close("partial_read_timeout"),
        this.#limits.ioDeadlineMs,
      );
    if (this.#endHeld) this.#finishInput("eof");
    else this.#input.resume();
  }

  #finishInput(reason: ChannelCloseReason): void {
    if (this.#inputDone || this.#closed) return;
    if (this.#waiting && reason === "eof") {
      // The lines still held are read first; end of input follows them.
      this.#endHeld = true;
      return;
    }
    this.#inputDone = true;
    clearTimeout(this.#lineTimer);
    this.#lineTimer = undefined;
    this.#detachInput();
    // A final line without its newline is incomplete: it is not a message.
    this.#events.ended(reason);
  }

  #detachInput(): void {
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("error", this.#onInputError);
    this.#input.pause();
  }

  /**
   * Queues one encoded message (newline added here). Returns false when the
   * channel is closed or the queue passed four times its bound (the channel
   * then closes). A queue at its bound makes reading wait instead.
   */
  send(encoded: Buffer): boolean {
    if (this.#closed) return false;
    const bytes = encoded.length + 1;
    if (
      this.#inFlight.length + 1 >
        (this.#limits.queueMaxMessages + this.#limits.pendingMaxRequests) * QUEUE_HARD_FACTOR ||
      this.#queuedBytes + bytes > this.#limits.queueMaxBytes * QUEUE_HARD_FACTOR
    ) {
      this.close("queue_full");
      return false;
    }
    const entry = { started: Date.now(), bytes };
    if (this.#inFlight.length === 0) this.#progress = entry.started;
    this.#inFlight.push(entry);
    this.#queuedBytes += bytes;
    if (this.#full()) this.#wait();
    if (this.#writeTimer === undefined) this.#armWriteTimer();
    const framed = Buffer.allocUnsafe(bytes);
    encoded.copy(framed);
    framed[encoded.length] = 10;
    try {
      this.#write(framed, (err) => this.#written(entry, err));
    } catch {
      this.close("output_error");
      return false;
    }
    return true;
  }

  #written(entry: { started: number; bytes: number }, err: Error | null | undefined): void {
    const i = this.#inFlight.indexOf(entry);
    if (i !== -1) {
      this.#inFlight.splice(i, 1);
      this.#queuedBytes -= entry.bytes;
    }
    if (this.#closed) return;
    if (err) {
      this.close("output_error");
      return;
    }
    this.#progress = Date.now();
    clearTimeout(this.#writeTimer);
    this.#writeTimer = undefined;
    if (this.#inFlight.length > 0) this.#armWriteTimer();
    else for (const w of this.#drainWaiters.splice(0)) w();
    this.resumeReading();
  }

  /** Closes the channel once no write has completed for the deadline while messages wait. */
  #armWriteTimer(): void {
    const wait = this.#progress + this.#limits.ioDeadlineMs - Date.now();
    this.#writeTimer = setTimeout(
      () => {
        this.#writeTimer = undefined;
        if (this.#inFlight.length === 0) return;
        if (Date.now() - this.#progress >= this.#limits.ioDeadlineMs)
          this.close("blocked_write_timeout");
        else this.#armWriteTimer();
      },
      Math.max(0, wait),
    );
  }

  /** Resolves when every queued message was written (or the channel closed). */
  drained(): Promise<void> {
    if (this.#inFlight.length === 0 || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Stops reading for good; what is queued, and what is sent later, is still written. */
  stopReading(): void {
    if (this.#closed || this.#inputDone) return;
    this.#inputDone = true;
    this.#waiting = false;
    this.#held = undefined;
    clearTimeout(this.#lineTimer);
    this.#lineTimer = undefined;
    this.#detachInput();
  }

  /** Stops reading and writing for good; `host_closed` is the host's own decision. */
  close(reason: ChannelCloseReason): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#lineTimer);
    clearTimeout(this.#writeTimer);
    this.#output.off("error", this.#onOutputError);
    // Keep a late EPIPE from becoming an unhandled error event.
    this.#output.on("error", () => {});
    for (const w of this.#drainWaiters.splice(0)) w();
    this.#inputDone = true;
    this.#detachInput();
    if (reason !== "host_closed") this.#events.broken(reason);
  }
}
