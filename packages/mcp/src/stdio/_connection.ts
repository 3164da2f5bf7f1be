// One client on stdio: each line it sends decoded and taken into the
// protocol, answers and notifications written back on the channel, and the
// one orderly end of it all. Everything between a decoded request and the
// bytes of its answer is the protocol's, as over HTTP.

import type { Readable, Writable } from "node:stream";
import { type HostCore, type McpLimits, type McpLogger, settled } from "../hosting/index.js";
import {
  type Answer,
  decodeMessage,
  errorAnswer,
  type IncomingMessage,
  idKey,
  JSONRPC_ERROR_CODES,
  Protocol,
} from "../protocol/index.js";
import type { BindingHandlers } from "../tools/index.js";
import { type ChannelCloseReason, StdioChannel } from "./_channel.js";
import type { RawWrite } from "./_stdout.js";

/** Most `subscriptions/listen` streams one client may hold open. */
const LISTENS_MAX = 32;

/**
 * Why a host stopped: the channel's reason, or `"closed"` after {@link McpStdioHost.close}.
 *
 * @example
 * const why: McpCloseReason = await host.closed; // "eof"
 */
export type McpCloseReason = ChannelCloseReason | "closed";

/** How a host ends: see {@link StdioConnection.finish}. */
type Ending = "owner" | "input_lost" | "broken";

/** What a stdio connection serves with. */
export interface StdioConnectionContext {
  readonly input: Readable;
  readonly output: Writable;
  /** Writes to `output` past a diversion of process stdout. */
  readonly rawWrite: RawWrite | undefined;
  readonly limits: McpLimits;
  readonly logger: McpLogger;
  readonly core: HostCore;
  /** The client's subject: its listen streams are bounded for it. */
  readonly subject: string;
  /** Aborted by the owner's shutdown. */
  readonly owner: AbortController;
  /** Aborted when the transport is lost: running calls end `transport_lost`. */
  readonly transport: AbortController;
  /** The client's handlers, given how to notify it. */
  handlers(notify: (message: object) => void): BindingHandlers;
  /** Runs last, once the core is closed (puts process stdout back). */
  readonly closedLast?: (() => void) | undefined;
}

/** The host's side of one stdio client, from the first line read to its end. */
export class StdioConnection {
  /** Settles once the transport closed and every owned invocation was finalized. */
  readonly closed: Promise<McpCloseReason>;
  readonly #ctx: StdioConnectionContext;
  readonly #handlers: BindingHandlers;
  readonly #protocol: Protocol;
  readonly #channel: StdioChannel;
  readonly #work = new Set<Promise<void>>();
  #finishing = false;
  #resolveClosed!: (r: McpCloseReason) => void;

  constructor(ctx: StdioConnectionContext) {
    this.#ctx = ctx;
    const { limits, logger } = ctx;
    this.#handlers = ctx.handlers((message) => this.#channel.send(encode(message)));
    // One client: its listen streams are bounded once, for the one subject.
    this.#protocol = new Protocol({
      limits,
      logger,
      listens: { perSubject: LISTENS_MAX, total: LISTENS_MAX },
    });
    this.closed = new Promise<McpCloseReason>((r) => {
      this.#resolveClosed = r;
    });
    this.#channel = new StdioChannel({
      input: ctx.input,
      output: ctx.output,
      write: ctx.rawWrite,
      limits,
      events: {
        line: (bytes) => this.#line(bytes),
        oversize: (n) => {
          logger.log("warn", "discarded an oversized message", { bytes: n });
          this.#send(
            errorAnswer(
              null,
              JSONRPC_ERROR_CODES.invalidRequest,
              `Invalid request: message exceeds ${limits.messageMaxBytes} bytes`,
            ),
          );
        },
        ended: (reason) => void this.finish(reason, "input_lost"),
        broken: (reason) => void this.finish(reason, "broken"),
        // A listen stream stays pending until it ends: only requests that will be answered count.
        busy: () => this.#protocol.answering >= limits.pendingMaxRequests,
        control: (bytes) => this.#control(bytes),
      },
    });
  }

  /**
   * Ends the host once. `owner`: the owner shuts it down — running calls are
   * cancelled `owner_cancel` and their results still written. `input_lost`:
   * input ended (the client closed stdin, or reading failed) — running calls
   * are cancelled `transport_lost`, answers still go out while stdout takes
   * them. `broken`: the channel closed itself (a limit, a deadline, an output
   * error) — calls are cancelled `transport_lost` and nothing more is
   * written. Either way the host waits for its calls to settle (each within
   * its cancellation grace), then for the output to drain (within the write
   * deadline), then closes. A shutdown asked for while the host is already
   * ending makes it cancel as the owner.
   */
  async finish(reason: McpCloseReason, how: Ending): Promise<void> {
    const { logger, owner, transport, core } = this.#ctx;
    if (this.#finishing) {
      if (how === "owner") owner.abort(new Error("the host is shutting down"));
      return;
    }
    this.#finishing = true;
    logger.log(how === "broken" ? "warn" : "info", "stdio transport closing", { reason });
    if (how === "owner") {
      this.#channel.stopReading();
      owner.abort(new Error("the host is shutting down"));
    } else transport.abort(new Error(`the client's transport was lost: ${reason}`));
    // Subscriptions end gracefully (a final listen result) when the channel can still carry it.
    this.#handlers.watcher.stop();
    // Owned work is bounded by its cancellation grace; each settles exactly once.
    await settled(this.#work);
    if (how !== "broken") await this.#channel.drained();
    this.#channel.close("host_closed");
    try {
      await core.close();
    } catch (e) {
      logger.log("error", "closing the invocation core failed", { error: String(e) });
    }
    this.#ctx.closedLast?.();
    this.#resolveClosed(reason);
  }

  #send(answer: Answer): void {
    this.#channel.send(answer.bytes);
  }

  /** A line's message, CRLF framing tolerated; `undefined` for a blank keep-alive line. */
  #decoded(bytes: Buffer): ReturnType<typeof decodeMessage> | undefined {
    const line = bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
    return line.length === 0 ? undefined : decodeMessage(line, this.#ctx.limits);
  }

  #line(bytes: Buffer): void {
    if (this.#finishing) return;
    const msg = this.#decoded(bytes);
    if (msg === undefined) return;
    if (msg.kind === "rejected") {
      this.#send(errorAnswer(msg.id, msg.code, msg.message));
      return;
    }
    if (msg.kind === "response") return;
    if (msg.kind === "notification") {
      this.#notification(msg);
      return;
    }
    this.#request(msg);
  }

  /**
   * A line read while reading waits: a cancellation of a call in flight is
   * acted on at once, ahead of the lines held before it (a congested host
   * never holds up a cancel); any other line, a cancellation of a request
   * still held among them included, waits its turn.
   */
  #control(bytes: Buffer): boolean {
    if (this.#finishing || !bytes.includes(CANCELLED)) return false;
    const key = cancelKey(this.#decoded(bytes));
    return key !== undefined && this.#protocol.cancel(key);
  }

  #request(msg: Extract<IncomingMessage, { kind: "request" }>): void {
    const open = this.#protocol.open(idKey(msg.id), msg, this.#ctx.subject);
    if ("bytes" in open) {
      this.#send(open);
      return;
    }
    const job = this.#protocol
      .answer(open, this.#handlers.dispatcher)
      .then((answer) => {
        if (answer !== undefined) this.#send(answer);
      })
      .finally(() => {
        this.#work.delete(job);
        this.#channel.resumeReading();
      });
    this.#work.add(job);
  }

  #notification(msg: Extract<IncomingMessage, { kind: "notification" }>): void {
    const cancelled = cancelKey(msg);
    if (cancelled !== undefined) this.#protocol.cancel(cancelled);
    if (msg.method === "notifications/initialized" && this.#handlers.dispatcher.initialized)
      this.#handlers.watcher.legacyListens();
    // Anything else carries nothing we act on.
  }
}

/** The request a `notifications/cancelled` cancels, as the request table keys it; `undefined` for any other message. */
function cancelKey(msg: ReturnType<typeof decodeMessage> | undefined): string | undefined {
  if (msg?.kind !== "notification" || msg.method !== "notifications/cancelled") return undefined;
  const id = msg.params?.requestId;
  return typeof id === "string" || typeof id === "number" ? idKey(id) : undefined;
}

/** What every cancellation line holds: lines without it are never decoded ahead of their turn. */
const CANCELLED = Buffer.from("notifications/cancelled");

function encode(message: object): Buffer {
  return Buffer.from(JSON.stringify(message), "utf8");
}
