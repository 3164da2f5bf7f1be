// MCP over Streamable HTTP, 2026-07-28: every POST is one self-contained
// request, authenticated on its own and bound to the subject, actor, token
// and preset its credential proves. Below the transport it is the stdio
// host's code: the same strict decoder and limits, handlers, protocol and
// invocation core.

import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { StateDirectory } from "@rukh/profile";
import {
  type HostCore,
  type HostSettings,
  hostSettings,
  type McpHostOptions,
  NO_LOGGER,
  openCore,
  ownerController,
  settled,
  stateOf,
} from "../hosting/index.js";
import { JSONRPC_ERROR_CODES, Protocol } from "../protocol/index.js";
import { ToolViews } from "../tools/index.js";
import { accessLogger, type HttpAccessLog, unlogged } from "./_access-log.js";
import type { HttpAuthenticator } from "./_authenticator.js";
import { type GateContext, gate } from "./_gate.js";
import { LegacyCancels } from "./_legacy-cancels.js";
import { jsonRpcError } from "./_reply.js";
import {
  cancelNotified,
  LISTENS_MAX,
  LISTENS_PER_SUBJECT,
  type ServeContext,
  serveRequest,
} from "./_serve-request.js";
import {
  allowedHostsOf,
  allowedOriginsOf,
  boundedServer,
  listenOn,
  resourceOf,
} from "./_server.js";

/** How long close() waits for running requests before it cuts their connections. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Options of {@link serveHttp}: those of every host, and where and how it is
 * reached. It has no launch binding: each request runs under the binding
 * its credential proves.
 *
 * @example
 * const options: ServeHttpOptions = { state, endpoint: mcpEndpoint(config, "remote"),
 *   resource: "https://mcp.acme.test/mcp", listen: { host: "127.0.0.1", port: 8080 }, authenticator };
 */
export interface ServeHttpOptions extends McpHostOptions {
  /** The endpoint's canonical URL (the token audience); its path is where MCP is served. */
  readonly resource: string;
  /** Where to listen; default 127.0.0.1, port 0 (any free one). */
  readonly listen?: { readonly host?: string; readonly port?: number };
  /** Who sent each request: the binding its credential proves, or the answer that refuses it. */
  readonly authenticator: HttpAuthenticator;
  /** `Host` values answered besides the resource's own and the listening address's. */
  readonly allowedHosts?: readonly string[];
  /** Browser origins allowed besides the resource's own (`https://app.example`). */
  readonly allowedOrigins?: readonly string[];
  /**
   * One JSON line per HTTP request, through pino (stdout unless given a
   * destination); default none. It holds no credential, no header, no
   * arguments and no result; the diagnostics `logger` is not affected.
   */
  readonly accessLog?: HttpAccessLog;
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
  const settings = hostSettings(options);
  const logger = options.logger ?? NO_LOGGER;
  const state = stateOf(options.state);
  const resource = resourceOf(options.resource);
  const access = await accessLogger(options.accessLog, logger);
  const core = await openCore({ state, settings, readyProcesses: options.readyProcesses });
  const owner = ownerController();
  const work = new Set<Promise<void>>();
  let closing = false;

  const server = boundedServer(settings.limits, (req, res) => {
    const job = onRequest(req, res).catch((e: unknown) => {
      logger.log("error", "request failed", { error: String(e) });
      if (!res.headersSent)
        jsonRpcError(res, {
          status: 500,
          id: null,
          code: JSONRPC_ERROR_CODES.internalError,
          message: "Internal error",
        });
      else res.destroy();
    });
    work.add(job);
    void job.finally(() => work.delete(job));
  });
  const listenHost = options.listen?.host ?? "127.0.0.1";
  const listening = await listenOn(server, listenHost, options.listen?.port ?? 0).catch(
    async (e) => {
      await core.close();
      throw e;
    },
  );

  const gateContext: GateContext = {
    mcpPath: resource.pathname,
    allowedHosts: allowedHostsOf(resource, listenHost, listening, options.allowedHosts),
    allowedOrigins: allowedOriginsOf(resource, options.allowedOrigins),
    authenticator: options.authenticator,
    limits: settings.limits,
    closing: () => closing,
    notified: (binding, method, params) => cancelNotified(serveContext, binding, method, params),
  };
  const protocol = new Protocol({
    limits: settings.limits,
    logger,
    listens: { perSubject: LISTENS_PER_SUBJECT, total: LISTENS_MAX },
  });
  const legacyCancels = new LegacyCancels(state, (key) => protocol.cancel(key));
  const serveContext: ServeContext = {
    state,
    core,
    settings,
    protocol,
    logger,
    ownerSignal: owner.signal,
    views: presetViews(state, settings),
    legacyCancels,
  };
  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const record = access?.open(req, res) ?? unlogged();
    const admitted = await gate(gateContext, req, res, record);
    if (admitted !== undefined) await serveRequest(serveContext, res, admitted, record);
  }

  return {
    address: listening.address,
    async close() {
      if (closing) return;
      closing = true;
      legacyCancels.stop();
      await shutDown({ server, owner, work, core });
      access?.flush();
    },
  };
}

/** The views of each preset, made when a request first needs them and shared by every request bound to it. */
function presetViews(state: StateDirectory, settings: HostSettings): (preset: string) => ToolViews {
  // Presets come from the owner configuration (a token only chooses among them): few, and bounded.
  const views = new Map<string, ToolViews>();
  return (preset) => {
    let v = views.get(preset);
    if (v === undefined) {
      v = new ToolViews(state, preset, settings.endpoint);
      views.set(preset, v);
    }
    return v;
  };
}

/**
 * Stops listening, cancels running calls (owner cancel), waits for them
 * within {@link CLOSE_GRACE_MS}, cuts whatever still holds a socket, and
 * closes the core.
 */
async function shutDown({
  server,
  owner,
  work,
  core,
}: {
  readonly server: Server;
  readonly owner: AbortController;
  readonly work: ReadonlySet<Promise<void>>;
  readonly core: HostCore;
}): Promise<void> {
  server.close();
  server.closeIdleConnections();
  owner.abort(new Error("the host is shutting down"));
  // Calls end within their cancellation grace; whatever still holds a socket after that is cut.
  const done = settled(work);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    done,
    new Promise((r) => {
      timer = setTimeout(r, CLOSE_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  server.closeAllConnections();
  await done;
  await core.close();
}
