// How an HTTP request is answered: one JSON body with its status, or an
// event stream of its notifications ending with its answer; and its body,
// read up to a limit.

import type { IncomingMessage, ServerResponse } from "node:http";
import { errorAnswer, type RequestId } from "../protocol/index.js";
import type { HttpRefusal } from "./_checks.js";
import { headerValue } from "./_header-value.js";

/** How often an open stream gets a comment line, so proxies keep it. */
const KEEPALIVE_MS = 15_000;

/** A request's answer: notifications (a stream only), then its one final message, encoded. */
export interface Reply {
  /**
   * The request will take a while (a call starts running): a stream sends
   * its headers now. A client may wait for them before it sends anything
   * else — the Python SDK holds its OAuth lock until a response begins — so
   * a long call must not hold them back until its first event.
   */
  begin(): void;
  notify(message: object): void;
  finish(status: number, message: Buffer): void;
  /** Ends the answer with no message: the client cancelled the request, and a cancelled request is not answered. */
  abandon(): void;
}

const jsonText = (message: object | Buffer) =>
  Buffer.isBuffer(message) ? message.toString("utf8") : JSON.stringify(message);

/** A JSON-RPC error answered over HTTP: its status, the request it answers, its code and message. */
export interface HttpRpcError {
  readonly status: number;
  /** `null`: the request's own id could not be read. */
  readonly id: RequestId | null;
  readonly code: number;
  readonly message: string;
}

/** Answers `res` with JSON-RPC error `code` to request `id`, with `status`. */
export function jsonRpcError(
  res: ServerResponse,
  { status, id, code, message }: HttpRpcError,
): undefined {
  jsonReply(res).finish(status, errorAnswer(id, code, message).bytes);
  return undefined;
}

/**
 * Answers `res` with refusal `r` (its headers made safe to send). What is
 * left of the request's body is read and dropped, within the request's
 * deadline: a connection closed on unread bytes is reset, and a proxy still
 * sending them then loses the answer (nginx answers 502 and takes the
 * replica out of its rotation).
 */
export function refuse(res: ServerResponse, r: HttpRefusal): undefined {
  for (const [k, v] of Object.entries(r.headers ?? {})) res.setHeader(k, headerValue(v));
  return jsonRpcError(res, { status: r.status, id: null, code: r.code, message: r.message });
}

export function jsonReply(res: ServerResponse): Reply {
  return {
    begin() {},
    notify() {},
    finish(status, message) {
      if (res.destroyed) return;
      const body = jsonText(message);
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(body);
    },
    abandon() {
      if (res.destroyed || res.headersSent) return;
      // Accepted, and nothing will follow: what HTTP says of a message that gets no answer.
      res.writeHead(202, { "cache-control": "no-store" }).end();
    },
  };
}

/** An event stream for one request: its notifications, then its answer, then the end. */
export function streamReply(res: ServerResponse): Reply {
  let open = false;
  let keepalive: NodeJS.Timeout | undefined;
  const start = () => {
    if (open) return;
    open = true;
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
    // Out at once, not with the first event (see Reply.begin).
    res.flushHeaders();
    keepalive = setInterval(() => res.write(":\n\n"), KEEPALIVE_MS);
    keepalive.unref();
  };
  const event = (message: object | Buffer) => {
    if (res.destroyed || res.writableEnded) return;
    start();
    res.write(`event: message\ndata: ${jsonText(message)}\n\n`);
  };
  return {
    begin() {
      if (!res.destroyed && !res.writableEnded) start();
    },
    notify: event,
    finish(status, message) {
      clearInterval(keepalive);
      // An error before anything was streamed is a plain JSON answer with its status.
      if (!open && status !== 200) {
        jsonReply(res).finish(status, message);
        return;
      }
      event(message);
      if (!res.writableEnded) res.end();
    },
    abandon() {
      clearInterval(keepalive);
      if (res.destroyed || res.writableEnded) return;
      start();
      res.end();
    },
  };
}

/** The body, up to `max` bytes; the rest of a longer one is read and dropped (see {@link refuse}). */
export function readBody(
  req: IncomingMessage,
  max: number,
): Promise<Buffer | "too_large" | "aborted"> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve("too_large");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > max) {
        chunks.length = 0;
        resolve("too_large");
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", () => resolve("aborted"));
    req.on("aborted", () => resolve("aborted"));
  });
}
