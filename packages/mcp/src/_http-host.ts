// MCP over Streamable HTTP, 2026-07-28: every POST is one self-contained
// request, authenticated on its own and bound to the subject, actor, token
// and preset its credential proves. Below the transport it is the stdio
// host's code: the same strict decoder and limits, dispatcher, tools and
// invocation core.

import { setMaxListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInvocationCore, type HostBinding, type InvocationCore } from "@rukh/core";
import { StateDirectory, type ToolNaming } from "@rukh/profile";
import { JSONRPC_ERROR_CODES, McpError } from "./_errors.js";
import type { HttpAuthenticator } from "./_http-auth.js";
import { type GateContext, gate } from "./_http-gate.js";
import { jsonRpcError } from "./_http-reply.js";
import {
  LISTENS_MAX,
  LISTENS_PER_SUBJECT,
  type ServeContext,
  serveRequest,
} from "./_http-serve.js";
import { MCP_READY_PROCESSES, type McpLimits, resolveLimits } from "./_limits.js";
import { type McpLogger, NO_LOGGER } from "./_logger.js";
import { Protocol } from "./_protocol.js";
import { ToolViews } from "./_views.js";

const HOST_VERSION = "0.1.0";
/** How long close() waits for running requests before it cuts their connections. */
const CLOSE_GRACE_MS = 10_000;
/** Largest accepted request head (request line and headers), in bytes. */
const HEADERS_MAX_BYTES = 16_384;
const _WELL_KNOWN = "/.well-known/oauth-protected-resource";

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
  /** Command processes kept started ahead of a call (default {@link MCP_READY_PROCESSES}; 0 for none). */
  readonly readyProcesses?: number;
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
 * sessions (`initialize`) with `-32602`, naming the version to use.
 *
 * @example
 * const host = await serveHttp({ state, resource: "http://127.0.0.1:8080/mcp",
 *   listen: { port: 8080 }, authenticator });
 */
export async function serveHttp(options: ServeHttpOptions): Promise<McpHttpHost> {
  const limits = resolveLimits(options.limits);
  const logger = options.logger ?? NO_LOGGER;
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
    readyProcesses: options.readyProcesses ?? MCP_READY_PROCESSES,
  }).catch((e: unknown) => {
    throw new McpError("state_unavailable", "cannot open the invocation core", { cause: e });
  });
  const owner = new AbortController();
  // Each request in flight listens for the host's shutdown until it ends: as
  // many as run at once (bounded by the presets' concurrency), never a leak.
  setMaxListeners(0, owner.signal);
  const work = new Set<Promise<void>>();
  let closing = false;

  const server: Server = createServer(
    {
      maxHeaderSize: HEADERS_MAX_BYTES,
      requestTimeout: limits.ioDeadlineMs,
      keepAliveTimeout: 5_000,
      // Deadlines are checked this often (Node's default, 30 s, would let a slow client hold a socket that long).
      connectionsCheckingInterval: 250,
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
  // Every socket costs a file descriptor: past this many, new connections are refused.
  server.maxConnections = 1_024;
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

  const gateContext: GateContext = {
    mcpPath,
    allowedHosts,
    allowedOrigins,
    authenticator: options.authenticator,
    limits,
    closing: () => closing,
  };
  const serveContext: ServeContext = {
    state,
    core,
    protocol: new Protocol({
      limits,
      logger,
      listens: { perSubject: LISTENS_PER_SUBJECT, total: LISTENS_MAX },
    }),
    serverInfo,
    logger,
    ownerSignal: owner.signal,
    ...(options.naming !== undefined && { naming: options.naming }),
    ...(options.deadlineMs !== undefined && { deadlineMs: options.deadlineMs }),
    devExtensions: options.devExtensions ?? [],
    views(preset) {
      let v = views.get(preset);
      if (v === undefined) {
        v = new ToolViews(state, preset, options.naming, options.devExtensions ?? []);
        views.set(preset, v);
      }
      return v;
    },
  };
  // Presets come from the owner configuration (a token only chooses among them): few, and bounded.
  const views = new Map<string, ToolViews>();
  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const admitted = await gate(gateContext, req, res);
    if (admitted !== undefined) await serveRequest(serveContext, res, admitted);
  }

  return {
    address,
    async close() {
      if (closing) return;
      closing = true;
      server.close();
      server.closeIdleConnections();
      owner.abort(new Error("the host is shutting down"));
      // Calls end within their cancellation grace; whatever still holds a socket after that is cut.
      const settled = (async () => {
        while (work.size > 0) await Promise.allSettled([...work]);
      })();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        settled,
        new Promise((r) => {
          timer = setTimeout(r, CLOSE_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
      server.closeAllConnections();
      await settled;
      await core.close();
    },
  };
}

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}
