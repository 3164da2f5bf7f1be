// A small Streamable HTTP front for stdio MCP servers, for running the
// official conformance suite (which speaks HTTP only) against the stdio
// host. It adds only what the HTTP transport itself defines: header checks,
// status codes, sessions for the 2025 era and SSE framing. Every JSON-RPC
// answer comes from a real `serveStdio` process; nothing here answers a
// method itself, and it changes nothing in a message but the names of the
// suite's task fixtures (see _tasks-fixture.ts). It is test code: it lets the suite judge the stdio host;
// the product's own HTTP transport (serveHttp) is judged directly.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostNames, toHost, toSuite } from "./_tasks-fixture.js";

const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";
const VERSION = "io.modelcontextprotocol/protocolVersion";
const BODY_MAX = 1_048_576;
/** The tasks/* requests whose Mcp-Name carries their taskId. */
const TASK_METHODS = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);

// biome-ignore lint/suspicious/noExplicitAny: the bridge reads wire messages member by member
type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: any };

/** One stdio server process, with its requests' ids rewritten so concurrent HTTP requests never collide. */
class Upstream {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<string, (m: Message) => void>();
  /** Listeners for messages that answer no request (notifications), by the request id they belong to, or "" for any. */
  readonly #streams = new Map<string, (m: Message) => void>();
  #next = 0;
  #buf = "";
  stderr = "";

  constructor(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (d: string) => {
      this.#buf += d;
      for (let nl = this.#buf.indexOf("\n"); nl !== -1; nl = this.#buf.indexOf("\n")) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        this.#route(JSON.parse(line) as Message);
      }
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (d: string) => {
      if (this.stderr.length < 200_000) this.stderr += d;
    });
    this.child.stdin.on("error", () => {});
  }

  #route(m: Message): void {
    if (m.id !== undefined && m.method === undefined) {
      const key = String(m.id);
      const w = this.#waiting.get(key);
      if (w !== undefined) {
        this.#waiting.delete(key);
        w(m);
      }
      return;
    }
    const sub = m.params?._meta?.[SUBSCRIPTION];
    const target = sub === undefined ? this.#streams.get("") : this.#streams.get(String(sub));
    target?.(m);
  }

  /** Sends a request and resolves with its response; `onNotice` gets the notifications sent for it. */
  request(m: Message, onNotice?: (n: Message) => void): { id: string; done: Promise<Message> } {
    const id = `bridge-${++this.#next}`;
    const done = new Promise<Message>((resolve) => {
      this.#waiting.set(id, (r) => {
        this.#streams.delete(id);
        resolve({ ...r, id: m.id });
      });
    });
    if (onNotice !== undefined)
      this.#streams.set(id, (n) => {
        const meta = { ...n.params?._meta, [SUBSCRIPTION]: m.id };
        onNotice({ ...n, params: { ...n.params, _meta: meta } });
      });
    this.send({ ...m, id });
    return { id, done };
  }

  /** Every notification that belongs to no request (the 2025 era's GET stream). */
  onNotifications(f: ((n: Message) => void) | undefined): void {
    if (f === undefined) this.#streams.delete("");
    else this.#streams.set("", f);
  }

  send(m: Message): void {
    this.child.stdin.write(`${JSON.stringify(m)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once("exit", () => resolve());
      this.child.stdin.end();
    });
  }
}

/**
 * The HTTP status the transport gives a JSON-RPC answer: in 2026-07-28 one
 * by its error code; in the 2025 eras (a session's) 200 for every answer,
 * an error too, since that era ties no status to it.
 */
function statusOf(m: Message, legacy: boolean): number {
  if (legacy) return 200;
  const code = (m.error as { code?: number } | undefined)?.code;
  if (code === undefined) return 200;
  if (code === -32601) return 404;
  if (code === -32602 || code === -32600 || code === -32700 || (code <= -32020 && code >= -32029))
    return 400;
  return 200;
}

function json(res: ServerResponse, status: number, body: unknown, headers: object = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const rpcError = (id: unknown, code: number, message: string) => ({
  jsonrpc: "2.0",
  id: id ?? null,
  error: { code, message },
});

async function bodyOf(req: IncomingMessage): Promise<string | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > BODY_MAX) return null;
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Options of {@link startBridge}: how to start one stdio server. */
export interface BridgeOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/** A running bridge: its URL and how to stop it with every server it started. */
export interface Bridge {
  readonly url: string;
  stderr(): string;
  close(): Promise<void>;
}

/** Starts the bridge on a loopback port. */
export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const start = () => new Upstream(options.command, options.args, options.env);
  // The 2026-07-28 era is stateless: one process serves every request.
  const shared = start();
  const sessions = new Map<string, Upstream>();
  let port = 0;
  // Each server's names of the suite's fixtures, listed once in the era of the request that asked.
  const lookups = new Map<Upstream, ReturnType<typeof hostNames>>();
  const names = (upstream: Upstream, m: Message) => {
    let lookup = lookups.get(upstream);
    if (lookup === undefined) {
      const meta = m.params?._meta;
      lookup = hostNames(
        (cursor) =>
          upstream.request({
            jsonrpc: "2.0",
            id: 0,
            method: "tools/list",
            params: {
              ...(cursor !== undefined && { cursor }),
              ...(meta !== undefined && { _meta: meta }),
            },
          }).done,
      );
      lookups.set(upstream, lookup);
    }
    return lookup;
  };

  async function onPost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await bodyOf(req);
    if (text === null) return json(res, 413, rpcError(null, -32600, "Request body too large"));
    let m: Message;
    try {
      m = JSON.parse(text) as Message;
    } catch {
      return json(res, 400, rpcError(null, -32700, "Parse error"));
    }
    if (typeof m !== "object" || m === null || Array.isArray(m))
      return json(res, 400, rpcError(null, -32600, "Invalid request: one message per POST"));
    const sessionId = req.headers["mcp-session-id"];
    let upstream: Upstream;
    if (typeof sessionId === "string") {
      const s = sessions.get(sessionId);
      if (s === undefined) return json(res, 404, rpcError(m.id, -32001, "Session not found"));
      upstream = s;
    } else if (m.method === "initialize") {
      upstream = start();
      const id = randomUUID();
      sessions.set(id, upstream);
      const r = await upstream.request(m).done;
      // A 2026-07-28 client's initialize (its _meta names the version) is a removed method's 404.
      const legacy = m.params?._meta?.[VERSION] === undefined;
      return json(res, statusOf(r, legacy), r, { "mcp-session-id": id });
    } else {
      // Stateless: the headers mirror the body, and must match it.
      const header = req.headers["mcp-protocol-version"];
      const version = m.params?._meta?.[VERSION];
      const method = req.headers["mcp-method"];
      const name = req.headers["mcp-name"];
      if (
        version !== undefined &&
        m.id !== undefined &&
        (header !== version ||
          (method !== undefined && method !== m.method) ||
          (name !== undefined && m.method === "tools/call" && name !== m.params?.name) ||
          (TASK_METHODS.has(m.method ?? "") && name !== m.params?.taskId))
      )
        return json(
          res,
          400,
          rpcError(m.id, -32020, "Header mismatch: the MCP headers differ from the request body"),
        );
      upstream = shared;
    }
    const asked = m;
    m = await toHost(m, (suite) => names(upstream, asked)(suite));
    if (m.id === undefined) {
      upstream.send(m);
      res.writeHead(202).end();
      return;
    }
    // A listen stream is SSE: its notifications, then its final result.
    const listen = m.method === "subscriptions/listen";
    const event = (x: Message) => res.write(`event: message\ndata: ${JSON.stringify(x)}\n\n`);
    if (listen)
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    const call = upstream.request(m, listen ? event : undefined);
    // A client that goes away cancels its request.
    res.on("close", () => {
      if (!res.writableEnded)
        upstream.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: call.id },
        });
    });
    const r = asked.method === "tools/list" ? toSuite(await call.done) : await call.done;
    if (!listen) return json(res, statusOf(r, upstream !== shared), r);
    event(r);
    res.end();
  }

  const server: Server = createServer((req, res) => {
    // DNS rebinding: only a loopback Host, and no foreign Origin.
    const host = req.headers.host ?? "";
    const origin = req.headers.origin;
    const loopback = (h: string) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(h);
    if (!loopback(host) || (origin !== undefined && !loopback(new URL(origin).host)))
      return json(res, 403, rpcError(null, -32600, "Forbidden: origin or host not allowed"));
    if (new URL(req.url ?? "/", `http://127.0.0.1:${port}`).pathname !== "/mcp")
      return json(res, 404, rpcError(null, -32600, "Not found"));
    const sessionId = req.headers["mcp-session-id"];
    if (req.method === "POST") {
      onPost(req, res).catch((e) => {
        if (!res.headersSent) json(res, 500, rpcError(null, -32603, String(e)));
      });
      return;
    }
    if (req.method === "GET" && typeof sessionId === "string" && sessions.has(sessionId)) {
      const s = sessions.get(sessionId)!;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      s.onNotifications((n) => res.write(`event: message\ndata: ${JSON.stringify(n)}\n\n`));
      res.on("close", () => s.onNotifications(undefined));
      return;
    }
    if (req.method === "DELETE" && typeof sessionId === "string") {
      const s = sessions.get(sessionId);
      if (s === undefined) return json(res, 404, rpcError(null, -32001, "Session not found"));
      sessions.delete(sessionId);
      void s.close().then(() => res.writeHead(200).end());
      return;
    }
    res.writeHead(405, { allow: "POST" }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stderr: () => [shared, ...sessions.values()].map((u) => u.stderr).join(""),
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await Promise.all([shared.close(), ...[...sessions.values()].map((s) => s.close())]);
    },
  };
}
