import { setMaxListeners } from "node:events";
import type { Readable, Writable } from "node:stream";
import { createInvocationCore, type HostBinding, type InvocationCore } from "@rukh/core";
import { StateDirectory, type ToolNaming } from "@rukh/profile";
import { type ChannelCloseReason, StdioChannel } from "./_channel.js";
import { createDispatcher } from "./_dispatch.js";
import { completeFor } from "./_era.js";
import { JSONRPC_ERROR_CODES, McpError } from "./_errors.js";
import { MCP_READY_PROCESSES, type McpLimits, resolveLimits } from "./_limits.js";
import { type McpLogger, NO_LOGGER } from "./_logger.js";
import { decodeMessage, type IncomingMessage, idKey } from "./_message.js";
import { type Answer, errorAnswer, Protocol } from "./_protocol.js";
import { hostTools } from "./_tools.js";
import { ListWatcher } from "./_watch.js";

const HOST_VERSION = "0.1.0";
/** Most `subscriptions/listen` streams one client may hold open. */
const LISTENS_MAX = 32;

/**
 * Options of {@link serveStdio}.
 *
 * @example
 * const options: ServeStdioOptions = { state: resolveStateDir({ brand: "acme" }),
 *   binding: { subject: "alice", actor: "mcp", taskAuthorityRef: "local", preset: "default" } };
 */
export interface ServeStdioOptions {
  /** The state directory, or its root path. */
  readonly state: StateDirectory | string;
  /** The launch binding: fixed for the life of the process. */
  readonly binding: HostBinding;
  /** Default `process.stdin`. */
  readonly input?: Readable;
  /** Default `process.stdout`; while serving it, other writes to it are diverted to stderr. */
  readonly output?: Writable;
  readonly logger?: McpLogger;
  /** Tighter limits than {@link MCP_LIMITS}. */
  readonly limits?: Partial<McpLimits>;
  /** How tool names are formed (an endpoint's naming); default the profile's. */
  readonly naming?: ToolNaming;
  /** The longest a call may run, in ms (an endpoint's); the preset's deadline still bounds it. */
  readonly deadlineMs?: number;
  /** Development links the owner named for this endpoint; every other one stays hidden. */
  readonly devExtensions?: readonly string[];
  /** Command processes kept started ahead of a call (default {@link MCP_READY_PROCESSES}; 0 for none). */
  readonly readyProcesses?: number;
  /** `serverInfo` reported to clients; default `{ name: "rukh", version }`. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

/**
 * Why a host stopped: the channel's reason, or `"closed"` after {@link McpHost.close}.
 *
 * @example
 * const why: McpCloseReason = await host.closed; // "eof"
 */
export type McpCloseReason = ChannelCloseReason | "closed";

/**
 * A running stdio MCP host.
 *
 * @example
 * const host = await serveStdio({ state, binding });
 * await host.closed;
 */
export interface McpHost {
  /** The immutable launch binding. */
  readonly binding: HostBinding;
  /** Settles once the transport closed and every owned invocation was finalized. */
  readonly closed: Promise<McpCloseReason>;
  /** Closes the transport, cancels running invocations (owner cancel) and finalizes. */
  close(): Promise<McpCloseReason>;
}

/**
 * Serves MCP on stdio for one immutable launch binding: newline-delimited
 * JSON-RPC read with the limits of {@link MCP_LIMITS}, protocol version
 * 2026-07-28 per request (`server/discover`, `tools/list`, `tools/call`,
 * `subscriptions/listen`) and 2025-11-25/2025-06-18 through `initialize`
 * (with `ping`), all entering the same invocation core. Stdout carries protocol messages only.
 *
 * @example
 * const host = await serveStdio({
 *   state: resolveStateDir({ brand: "acme" }),
 *   binding: { subject: "alice", actor: "mcp", taskAuthorityRef: "local", preset: "default" },
 * });
 * await host.closed;
 */
export async function serveStdio(options: ServeStdioOptions): Promise<McpHost> {
  const limits = resolveLimits(options.limits);
  const logger = options.logger ?? NO_LOGGER;
  const state =
    typeof options.state === "string" ? new StateDirectory(options.state) : options.state;
  const binding: HostBinding = Object.freeze({ ...options.binding });
  const deadline = options.deadlineMs;
  if (deadline !== undefined && (!Number.isSafeInteger(deadline) || deadline < 1))
    throw new McpError("invalid_limits", "deadlineMs must be a positive integer");
  for (const k of ["subject", "actor", "taskAuthorityRef", "preset"] as const)
    if (typeof binding[k] !== "string" || binding[k].length === 0)
      throw new McpError("invalid_binding", `binding.${k} must be a non-empty string`);
  const serverInfo = Object.freeze({
    name: options.serverInfo?.name ?? "rukh",
    version: options.serverInfo?.version ?? HOST_VERSION,
  });
  let core: InvocationCore;
  try {
    core = await createInvocationCore({
      state,
      binding,
      devExtensions: options.devExtensions ?? [],
      readyProcesses: options.readyProcesses ?? MCP_READY_PROCESSES,
    });
  } catch (e) {
    throw new McpError("state_unavailable", "cannot open the invocation core", { cause: e });
  }
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;

  // While we own process stdout, any other write to it (a stray console.log,
  // a library banner) goes to stderr instead of corrupting the protocol.
  let restoreStdout: (() => void) | undefined;
  let rawWrite: ((chunk: Buffer, cb: (err?: Error | null) => void) => unknown) | undefined;
  if (output === process.stdout) {
    const original = process.stdout.write;
    const bound = original.bind(process.stdout) as (
      chunk: Buffer,
      cb: (err?: Error | null) => void,
    ) => boolean;
    rawWrite = bound;
    process.stdout.write = ((...args: unknown[]) =>
      (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof original;
    restoreStdout = () => {
      process.stdout.write = original;
    };
  }

  const owner = new AbortController();
  // Each request in flight listens for the host's shutdown until it ends: as
  // many as run at once (bounded by the presets' concurrency), never a leak.
  setMaxListeners(0, owner.signal);
  // Aborted when the transport is lost: running calls end `transport_lost`.
  const transport = new AbortController();
  const tools = hostTools({
    state,
    core,
    binding,
    ownerSignal: owner.signal,
    transportSignal: transport.signal,
    serverInfo,
    notify: (message) => channel.send(encode(message)),
    ...(options.naming !== undefined && { naming: options.naming }),
    ...(options.deadlineMs !== undefined && { deadlineMs: options.deadlineMs }),
    devExtensions: options.devExtensions ?? [],
  });
  const watcher = new ListWatcher({
    state,
    send: (message) => channel.send(encode(message)),
    complete: (result) => completeFor("modern", result, serverInfo),
    serverInfo,
    warn: (message, data) => logger.log("warn", message, data),
  });
  const dispatcher = createDispatcher({
    tools,
    watcher,
    serverInfo,
    info: (message, data) => logger.log("info", message, data),
  });
  // One client: its listen streams are bounded once, for the one subject.
  const protocol = new Protocol({
    limits,
    logger,
    listens: { perSubject: LISTENS_MAX, total: LISTENS_MAX },
  });
  const work = new Set<Promise<void>>();
  let finishing = false;
  let resolveClosed!: (r: McpCloseReason) => void;
  const closed = new Promise<McpCloseReason>((r) => {
    resolveClosed = r;
  });

  const channel = new StdioChannel(input, output, rawWrite, limits, {
    line: (bytes) => onLine(bytes),
    oversize: (n) => {
      logger.log("warn", "discarded an oversized message", { bytes: n });
      send(
        errorAnswer(
          null,
          JSONRPC_ERROR_CODES.invalidRequest,
          `Invalid request: message exceeds ${limits.messageMaxBytes} bytes`,
        ),
      );
    },
    ended: (reason) => void finish(reason, "input_lost"),
    broken: (reason) => void finish(reason, "broken"),
    // A listen stream stays pending until it ends: only requests that will be answered count.
    busy: () => protocol.answering >= limits.pendingMaxRequests,
  });

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
  async function finish(reason: McpCloseReason, how: "owner" | "input_lost" | "broken") {
    if (finishing) {
      if (how === "owner") owner.abort(new Error("the host is shutting down"));
      return;
    }
    finishing = true;
    logger.log(how === "broken" ? "warn" : "info", "stdio transport closing", { reason });
    if (how === "owner") {
      channel.stopReading();
      owner.abort(new Error("the host is shutting down"));
    } else transport.abort(new Error(`the client's transport was lost: ${reason}`));
    // Subscriptions end gracefully (a final listen result) when the channel can still carry it.
    watcher.stop();
    // Owned work is bounded by its cancellation grace; each settles exactly once.
    while (work.size > 0) await Promise.allSettled([...work]);
    if (how !== "broken") await channel.drained();
    channel.close("host_closed");
    try {
      await core.close();
    } catch (e) {
      logger.log("error", "closing the invocation core failed", { error: String(e) });
    }
    restoreStdout?.();
    resolveClosed(reason);
  }

  function encode(message: object): Buffer {
    return Buffer.from(JSON.stringify(message), "utf8");
  }

  function send(answer: Answer): void {
    channel.send(answer.bytes);
  }

  function onLine(bytes: Buffer): void {
    if (finishing) return;
    // Tolerate CRLF framing and blank keep-alive lines.
    let line = bytes;
    if (line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    if (line.length === 0) return;
    const msg = decodeMessage(line, limits);
    if (msg.kind === "rejected") {
      send(errorAnswer(msg.id, msg.code, msg.message));
      return;
    }
    if (msg.kind === "response") return;
    if (msg.kind === "notification") {
      onNotification(msg);
      return;
    }
    const open = protocol.open(idKey(msg.id), msg, binding.subject);
    if ("bytes" in open) {
      send(open);
      return;
    }
    const job = protocol
      .answer(open, dispatcher)
      .then((answer) => {
        if (answer !== undefined) send(answer);
      })
      .finally(() => {
        work.delete(job);
        channel.resumeReading();
      });
    work.add(job);
  }

  function onNotification(msg: Extract<IncomingMessage, { kind: "notification" }>): void {
    if (msg.method === "notifications/cancelled") {
      const id = msg.params?.requestId;
      if (typeof id === "string" || typeof id === "number") protocol.cancel(idKey(id));
    }
    if (msg.method === "notifications/initialized" && dispatcher.initialized)
      watcher.legacyListens();
    // Anything else carries nothing we act on.
  }

  const host: McpHost = {
    binding,
    closed,
    async close() {
      await finish("closed", "owner");
      return closed;
    },
  };
  return host;
}
