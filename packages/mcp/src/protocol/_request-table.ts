// One request's life, whichever transport carried it: the table of requests
// in hand (ids in flight, open listen streams, cancellation), the deadline
// of a list, the dispatch, and the reply path with its limits. A transport
// only moves bytes and proves who sent them; everything from a decoded
// request to the bytes of its answer is here, once, so that stdio and HTTP
// cannot answer the same request differently.

import type { JsonValue } from "@rukh/json";
import type { McpLimits, McpLogger } from "../hosting/index.js";
import type { Dispatcher, Request } from "./_dispatch.js";
import type { RequestId } from "./_message.js";
import { JSONRPC_ERROR_CODES, RpcError } from "./_rpc.js";

/**
 * The answer to one request: the JSON-RPC message, encoded, and the HTTP
 * status it travels with over HTTP (stdio sends the message alone).
 */
export interface Answer {
  readonly bytes: Buffer;
  readonly status: number;
  /** The JSON-RPC error code, when the answer is an error. */
  readonly error?: number;
  /** The `outcome` of the call envelope a `tools/call` answer carries (in its result, or an oversized one's error data). */
  readonly outcome?: string;
}

/** Most listen streams one host holds open: per subject, and in all. */
export interface ListenLimits {
  readonly perSubject: number;
  readonly total: number;
}

/** What a protocol answers with. */
export interface ProtocolOptions {
  readonly limits: McpLimits;
  readonly logger: McpLogger;
  readonly listens: ListenLimits;
}

/** A request in the table, from when it is read to when it is answered (or cancelled). */
export interface OpenRequest {
  readonly key: string;
  readonly request: Request;
  readonly subject: string;
  readonly signal: AbortSignal;
}

interface Entry extends OpenRequest {
  readonly controller: AbortController;
  readonly listens: boolean;
  cancelled: boolean;
}

/** Methods bounded by the list deadline: discovery and listing, never a call or a listen. */
const LISTING = new Set(["tools/list", "server/discover", "initialize"]);

/**
 * The HTTP status of a JSON-RPC error: -32601 is 404; a request that is
 * malformed, has bad params or headers, or names an unsupported version or
 * an undeclared capability (-32700, -32600, -32602, -32020…-32029) is 400;
 * any other error is the request's own answer, 200.
 */
export function statusOf(code: number): number {
  if (code === JSONRPC_ERROR_CODES.methodNotFound) return 404;
  if (
    code === JSONRPC_ERROR_CODES.parseError ||
    code === JSONRPC_ERROR_CODES.invalidRequest ||
    code === JSONRPC_ERROR_CODES.invalidParams ||
    (code <= -32020 && code >= -32029)
  )
    return 400;
  return 200;
}

const encode = (message: object) => Buffer.from(JSON.stringify(message), "utf8");

/**
 * The answer carrying error `code` to request `id` (null: the request's own
 * id could not be read), with the HTTP status of that code unless another
 * is given.
 */
export function errorAnswer(
  id: RequestId | null,
  code: number,
  message: string,
  options: { readonly data?: JsonValue; readonly status?: number } = {},
): Answer {
  const error = { code, message, ...(options.data !== undefined && { data: options.data }) };
  return {
    bytes: encode({ jsonrpc: "2.0", id, error }),
    status: options.status ?? statusOf(code),
    error: code,
  };
}

/** The request table and reply path of one host. */
export class Protocol {
  readonly #options: ProtocolOptions;
  readonly #open = new Map<string, Entry>();
  readonly #listening = new Map<string, number>();
  #listeningAll = 0;

  constructor(options: ProtocolOptions) {
    this.#options = options;
  }

  /** Requests in hand that will be answered (open listen streams are not: they end when they end). */
  get answering(): number {
    return this.#open.size - this.#listeningAll;
  }

  /**
   * Takes `request` into the table under `key` (what names it among the
   * requests in hand: its id on stdio, the POST itself over HTTP), for
   * `subject`; or the answer that refuses it: its key already in hand, or
   * one listen stream too many.
   */
  open(key: string, request: Request, subject: string): OpenRequest | Answer {
    if (this.#open.has(key))
      return errorAnswer(
        null,
        JSONRPC_ERROR_CODES.invalidRequest,
        "Invalid request: id is already in use",
      );
    const listens = request.method === "subscriptions/listen";
    if (listens) {
      const { perSubject, total } = this.#options.listens;
      const mine = this.#listening.get(subject) ?? 0;
      if (mine >= perSubject || this.#listeningAll >= total)
        return errorAnswer(
          request.id,
          JSONRPC_ERROR_CODES.invalidRequest,
          perSubject >= total
            ? `Invalid request: at most ${total} subscriptions/listen streams may be open at once`
            : `Too many subscriptions/listen streams: at most ${perSubject} per subject and ${total} in all may be open at once`,
          { status: 429 },
        );
      this.#listening.set(subject, mine + 1);
      this.#listeningAll++;
    }
    const controller = new AbortController();
    const entry: Entry = {
      key,
      request,
      subject,
      controller,
      signal: controller.signal,
      listens,
      cancelled: false,
    };
    this.#open.set(key, entry);
    return entry;
  }

  /**
   * The client gave up on request `key` (a cancellation notification, a
   * closed connection): its work is cancelled and it gets no answer. An
   * unknown key, or one already cancelled, does nothing; says whether this
   * cancelled a request.
   */
  cancel(key: string): boolean {
    const entry = this.#open.get(key);
    if (entry === undefined || entry.cancelled) return false;
    entry.cancelled = true;
    entry.controller.abort(new Error("cancelled by the client"));
    return true;
  }

  /**
   * Answers an open request through `dispatcher`, within the list deadline
   * for a listing, and takes it out of the table: the answer, or `undefined`
   * when it was cancelled (nothing is sent for it).
   */
  async answer(open: OpenRequest, dispatcher: Dispatcher): Promise<Answer | undefined> {
    const entry = this.#open.get(open.key);
    if (entry === undefined) return undefined;
    const { id, method } = entry.request;
    try {
      const result = await this.#bounded(method, () =>
        dispatcher.handle(entry.request, entry.signal),
      );
      return entry.cancelled ? undefined : this.#result(id, result);
    } catch (e) {
      if (entry.cancelled) return undefined;
      if (e instanceof RpcError)
        return errorAnswer(id, e.code, e.message, e.data === undefined ? {} : { data: e.data });
      this.#options.logger.log("error", "request failed", { method, error: String(e) });
      return errorAnswer(id, JSONRPC_ERROR_CODES.internalError, "Internal error", { status: 500 });
    } finally {
      this.#close(entry);
    }
  }

  #close(entry: Entry): void {
    this.#open.delete(entry.key);
    if (!entry.listens) return;
    const left = (this.#listening.get(entry.subject) ?? 1) - 1;
    if (left === 0) this.#listening.delete(entry.subject);
    else this.#listening.set(entry.subject, left);
    this.#listeningAll--;
  }

  async #bounded(method: string, run: () => Promise<object>): Promise<object> {
    if (!LISTING.has(method)) return run();
    const { listDeadlineMs } = this.#options.limits;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new RpcError(
                  JSONRPC_ERROR_CODES.internalError,
                  `${method} did not finish within ${listDeadlineMs} ms`,
                ),
              ),
            listDeadlineMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A result, serialized once; one past the response limit becomes an error
   * that still names a finalized call (its envelope, without the result, as
   * data), so the client learns what happened to it.
   */
  #result(id: RequestId, result: object): Answer {
    const bytes = encode({ jsonrpc: "2.0", id, result });
    const env = (result as { structuredContent?: Record<string, JsonValue> }).structuredContent;
    const outcome = typeof env?.outcome === "string" ? { outcome: env.outcome } : {};
    const max = this.#options.limits.responseMaxBytes;
    if (bytes.length <= max) return { bytes, status: 200, ...outcome };
    this.#options.logger.log("warn", "response too large", { bytes: bytes.length });
    const tooLarge = errorAnswer(
      id,
      JSONRPC_ERROR_CODES.internalError,
      `the response would exceed ${max} bytes`,
      {
        status: 500,
        ...(env !== undefined && {
          data: { invocationId: env.invocationId!, outcome: env.outcome!, reason: env.reason! },
        }),
      },
    );
    return { ...tooLarge, ...outcome };
  }
}
