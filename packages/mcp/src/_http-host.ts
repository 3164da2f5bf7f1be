// MCP over Streamable HTTP, 2026-07-28: every POST is one self-contained
// request, authenticated on its own and bound to the subject, actor, token
// and preset its credential proves. Below the transport it is the stdio
// host's code: the same strict decoder and limits, dispatcher, tools and
// invocation core.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInvocationCore, type HostBinding, type InvocationCore } from "@rukh/core";
import type { JsonObject } from "@rukh/json";
import { StateDirectory, type ToolNaming } from "@rukh/profile";
import { createDispatcher } from "./_dispatch.js";
import { completeFor } from "./_era.js";
import { JSONRPC_ERROR_CODES, McpError } from "./_errors.js";
import type { McpLogger } from "./_host.js";
import { checkMedia, checkRouting, checkSource } from "./_http-checks.js";
import {
  errorMessage,
  jsonReply,
  jsonRpcError,
  readBody,
  refuse,
  statusOf,
  streamReply,
} from "./_http-reply.js";
import { type McpLimits, resolveLimits } from "./_limits.js";
import { decodeMessage, type RequestId } from "./_message.js";
import { RpcError } from "./_rpc.js";
import { hostTools } from "./_tools.js";
import { ListWatcher } from "./_watch.js";

const HOST_VERSION = "0.1.0";
/** Largest accepted request head (request line and headers), in bytes. */
const HEADERS_MAX_BYTES = 16_384;
const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * Who sent a request, decided from its `Authorization` header alone: the
 * binding its credential proves, or the answer to send instead (401 with a
 * challenge, 403 for too little scope). The credential itself goes no further.
 *
 * @example
 * const auth: HttpAuthenticator = { metadata, authenticate: async (h) => verifyBearer(h) };
 */
export interface HttpAuthenticator {
  authenticate(authorization: string | undefined): Promise<HttpAuthOutcome>;
  /** The Protected Resource Metadata (RFC 9728) served at its well-known paths. */
  readonly metadata: object;
}

/** The result of {@link HttpAuthenticator.authenticate}. */
export type HttpAuthOutcome =
  | { readonly ok: true; readonly binding: HostBinding }
  | {
      readonly ok: false;
      readonly status: 400 | 401 | 403 | 503;
      /** The `WWW-Authenticate` value. */
      readonly challenge: string;
      readonly message: string;
    };

/**
 * Options of {@link serveHttp}.
 *
 * @example
 * const options: ServeHttpOptions = { state, resource: "https://mcp.acme.test/mcp",
 *   listen: { host: "127.0.0.1", port: 8080 }, authenticator };
 */
export interface ServeHttpOptions {
  readonly state: StateDirectory | string;
  /** The endpoint's canonical URL (the token audience); its path is where MCP is served. */
  readonly resource: string;
  /** Where to listen; default 127.0.0.1, port 0 (any free one). */
  readonly listen?: { readonly host?: string; readonly port?: number };
  readonly authenticator: HttpAuthenticator;
  /** `Host` values answered besides the resource's own and the listening address's. */
  readonly allowedHosts?: readonly string[];
  /** Browser origins allowed besides the resource's own (`https://app.example`). */
  readonly allowedOrigins?: readonly string[];
  readonly limits?: Partial<McpLimits>;
  readonly naming?: ToolNaming;
  readonly deadlineMs?: number;
  readonly devExtensions?: readonly string[];
  readonly serverInfo?: { readonly name: string; readonly version: string };
  readonly logger?: McpLogger;
}

/**
 * A running HTTP MCP host.
 *
 * @example
 * const host = await serveHttp(options);
 * console.log(host.url);
 * await host.close();
 */
export interface McpHttpHost {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  readonly address: string;
  /** Closes the listener, cancels running calls (owner cancel), waits for them and closes the core. */
  close(): Promise<void>;
}

/**
 * Serves MCP 2026-07-28 over Streamable HTTP at `resource`'s path: POST
 * only, each request authenticated by `authenticator` and served under the
 * binding it proves. Answers are JSON, or an event stream for a call that
 * asked for progress and for `subscriptions/listen`. Refuses 2025-era
 * sessions (`initialize`) with a header-mismatch error naming the version.
 *
 * @example
 * const host = await serveHttp({ state, resource: "http://127.0.0.1:8080/mcp",
 *   listen: { port: 8080 }, authenticator });
 */
export async function serveHttp(options: ServeHttpOptions): Promise<McpHttpHost> {
  const limits = resolveLimits(options.limits);
  const logger = options.logger ?? { log() {} };
  const state =
    typeof options.state === "string" ? new StateDirectory(options.state) : options.state;
  let resource: URL;
  try {
    resource = new URL(options.resource);
  } catch {
    throw new McpError(
      "invalid_options",
      `resource ${JSON.stringify(options.resource)} is not a URL`,
    );
  }
  if (resource.hash !== "" || resource.search !== "" || !/^https?:$/.test(resource.protocol))
    throw new McpError(
      "invalid_options",
      `resource ${options.resource} must be an http(s) URL without query or fragment`,
    );
  const mcpPath = resource.pathname;
  const serverInfo = Object.freeze({
    name: options.serverInfo?.name ?? "rukh",
    version: options.serverInfo?.version ?? HOST_VERSION,
  });
  // The core's own binding journals nothing: every call is made through a request's binding.
  const core: InvocationCore = await createInvocationCore({
    state,
    binding: { subject: "http-host", actor: "rukh", taskAuthorityRef: "none", preset: "none" },
    devExtensions: options.devExtensions ?? [],
  }).catch((e: unknown) => {
    throw new McpError("state_unavailable", "cannot open the invocation core", { cause: e });
  });
  const owner = new AbortController();
  const work = new Set<Promise<void>>();
  let closing = false;

  const server: Server = createServer(
    {
      maxHeaderSize: HEADERS_MAX_BYTES,
      requestTimeout: limits.ioDeadlineMs,
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      const job = onRequest(req, res).catch((e: unknown) => {
        logger.log("error", "request failed", { error: String(e) });
        if (!res.headersSent)
          jsonRpcError(res, 500, null, JSONRPC_ERROR_CODES.internalError, "Internal error");
        else res.destroy();
      });
      work.add(job);
      void job.finally(() => work.delete(job));
    },
  );
  server.headersTimeout = limits.ioDeadlineMs;
  const listenHost = options.listen?.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e) =>
      reject(
        new McpError("listen_failed", `cannot listen on ${listenHost}: ${e.message}`, { cause: e }),
      ),
    );
    server.listen(options.listen?.port ?? 0, listenHost, () => resolve());
  }).catch(async (e) => {
    await core.close();
    throw e;
  });
  const port = (server.address() as AddressInfo).port;
  const shown = listenHost.includes(":") ? `[${listenHost}]` : listenHost;
  const address = `http://${shown}:${port}`;

  const allowedHosts = new Set(
    [
      resource.host,
      `${shown}:${port}`,
      ...(isLoopback(listenHost)
        ? [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]
        : []),
      ...(options.allowedHosts ?? []),
    ].map((h) => h.toLowerCase()),
  );
  const allowedOrigins = new Set(
    [resource.origin, ...(options.allowedOrigins ?? [])].map((o) => o.toLowerCase()),
  );
  logger.log("info", "serving MCP over HTTP", { address, resource: resource.href });

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const source = checkSource(req.headers, allowedHosts, allowedOrigins);
    if (source !== undefined) return refuse(res, source);
    const path = new URL(req.url ?? "/", "http://host").pathname;
    if (path === WELL_KNOWN || path === `${WELL_KNOWN}${mcpPath}`) {
      if (req.method !== "GET" && req.method !== "HEAD")
        return refuse(res, {
          status: 405,
          code: JSONRPC_ERROR_CODES.invalidRequest,
          message: "Method not allowed",
          headers: { allow: "GET" },
        });
      const body = JSON.stringify(options.authenticator.metadata);
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    if (path !== mcpPath)
      return refuse(res, {
        status: 404,
        code: JSONRPC_ERROR_CODES.invalidRequest,
        message: "Not found",
      });
    if (req.method !== "POST")
      return refuse(res, {
        status: 405,
        code: JSONRPC_ERROR_CODES.invalidRequest,
        message: "Method not allowed: this endpoint takes one POST per request (MCP 2026-07-28)",
        headers: { allow: "POST" },
      });
    if (closing)
      return refuse(res, {
        status: 503,
        code: JSONRPC_ERROR_CODES.internalError,
        message: "The host is shutting down",
      });

    // Who it is comes first: no credential, no list and no call, nothing read.
    const auth = await options.authenticator.authenticate(oneHeader(req, "authorization"));
    if (!auth.ok)
      return refuse(res, {
        status: auth.status,
        code: JSONRPC_ERROR_CODES.invalidRequest,
        message: auth.message,
        headers: { "www-authenticate": auth.challenge },
      });
    const media = checkMedia(req.headers);
    if (media !== undefined) return refuse(res, media);
    const body = await readBody(req, limits.messageMaxBytes);
    if (body === "too_large")
      return refuse(res, {
        status: 413,
        code: JSONRPC_ERROR_CODES.invalidRequest,
        message: `Invalid request: message exceeds ${limits.messageMaxBytes} bytes`,
      });
    if (body === "aborted") return;
    const msg = decodeMessage(body, limits);
    if (msg.kind === "rejected") return jsonRpcError(res, 400, msg.id, msg.code, msg.message);
    if (msg.kind === "response")
      return refuse(res, {
        status: 400,
        code: JSONRPC_ERROR_CODES.invalidRequest,
        message: "Invalid request: a client sends no responses over HTTP",
      });
    if (msg.kind === "notification") {
      // Nothing a client notifies is acted on over HTTP (closing a stream cancels).
      res.writeHead(202).end();
      return;
    }
    const routing = checkRouting(req.headers, msg.method, msg.params);
    if (routing !== undefined)
      return jsonRpcError(res, routing.status, msg.id, routing.code, routing.message);
    await serve(res, auth.binding, msg.id, msg.method, msg.params);
  }

  /** One authenticated request, served under its own binding; its answer is JSON or a stream. */
  async function serve(
    res: ServerResponse,
    binding: HostBinding,
    id: RequestId,
    method: string,
    params: JsonObject | undefined,
  ): Promise<void> {
    const cancel = new AbortController();
    const transport = new AbortController();
    // The client closing its side before the answer is the request's cancellation.
    res.on("close", () => {
      if (!res.writableFinished) cancel.abort(new Error("the client closed the request"));
    });
    const streams =
      method === "subscriptions/listen" || (method === "tools/call" && hasProgressToken(params));
    const reply = streams ? streamReply(res) : jsonReply(res);
    const tools = hostTools({
      state,
      core: core.bound(binding),
      binding,
      ownerSignal: owner.signal,
      transportSignal: transport.signal,
      serverInfo,
      notify: (message) => reply.notify(message),
      ...(options.naming !== undefined && { naming: options.naming }),
      ...(options.deadlineMs !== undefined && { deadlineMs: options.deadlineMs }),
      devExtensions: options.devExtensions ?? [],
    });
    const watcher = new ListWatcher({
      state,
      send: (message) => reply.notify(message),
      complete: (result) => completeFor("modern", result, serverInfo),
      serverInfo,
      warn: (message, data) => logger.log("warn", message, data),
    });
    const stop = () => watcher.stop();
    owner.signal.addEventListener("abort", stop, { once: true });
    const dispatcher = createDispatcher({
      tools,
      watcher,
      limits,
      serverInfo,
      info: (message, data) => logger.log("info", message, data),
    });
    try {
      const result = await dispatcher.handle(
        { kind: "request", id, method, params },
        cancel.signal,
      );
      const answer = { jsonrpc: "2.0", id, result };
      const bytes = Buffer.byteLength(JSON.stringify(answer));
      if (bytes > limits.responseMaxBytes) {
        logger.log("warn", "response too large", { bytes });
        reply.finish(
          500,
          errorMessage(
            id,
            JSONRPC_ERROR_CODES.internalError,
            `the response would exceed ${limits.responseMaxBytes} bytes`,
          ),
        );
      } else reply.finish(200, answer);
    } catch (e) {
      if (e instanceof RpcError)
        reply.finish(statusOf(e.code), errorMessage(id, e.code, e.message, e.data));
      else {
        logger.log("error", "request failed", { method, error: String(e) });
        reply.finish(500, errorMessage(id, JSONRPC_ERROR_CODES.internalError, "Internal error"));
      }
    } finally {
      owner.signal.removeEventListener("abort", stop);
      watcher.stop();
    }
  }

  return {
    address,
    async close() {
      if (closing) return;
      closing = true;
      server.close();
      owner.abort(new Error("the host is shutting down"));
      while (work.size > 0) await Promise.allSettled([...work]);
      server.closeAllConnections();
      await core.close();
    },
  };
}

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}

function oneHeader(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function hasProgressToken(params: JsonObject | undefined): boolean {
  const meta = params?._meta;
  return (
    typeof meta === "object" &&
    meta !== null &&
    !Array.isArray(meta) &&
    Object.hasOwn(meta, "progressToken")
  );
}
