import type { Readable, Writable } from "node:stream";
import type { HostBinding } from "@rukh/core";
import type { StateDirectory, ToolNaming } from "@rukh/profile";
import {
  McpError,
  type McpLimits,
  type McpLogger,
  NO_LOGGER,
  openCore,
  ownerController,
  resolveLimits,
  serverInfoOf,
  stateOf,
} from "../hosting/index.js";
import { bindingHandlers } from "../tools/index.js";
import { type McpCloseReason, StdioConnection } from "./_connection.js";
import { divertStdout } from "./_stdout.js";

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
  /** What clients are told of the server when they connect (an endpoint's `instructions`). */
  readonly instructions?: string;
}

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
  const state = stateOf(options.state);
  const binding = launchBinding(options);
  const serverInfo = serverInfoOf(options.serverInfo);
  const core = await openCore({
    state,
    binding,
    devExtensions: options.devExtensions,
    readyProcesses: options.readyProcesses,
  });
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const stdout = output === process.stdout ? divertStdout() : undefined;
  const owner = ownerController();
  const transport = new AbortController();
  const connection = new StdioConnection({
    input,
    output,
    rawWrite: stdout?.write,
    limits,
    logger,
    core,
    subject: binding.subject,
    owner,
    transport,
    handlers: (notify) =>
      bindingHandlers({
        state,
        core,
        binding,
        ownerSignal: owner.signal,
        transportSignal: transport.signal,
        serverInfo,
        notify,
        ...(options.naming !== undefined && { naming: options.naming }),
        ...(options.deadlineMs !== undefined && { deadlineMs: options.deadlineMs }),
        responseMaxBytes: limits.responseMaxBytes,
        ...(options.instructions !== undefined && { instructions: options.instructions }),
        devExtensions: options.devExtensions ?? [],
        logger,
        info: (message, data) => logger.log("info", message, data),
      }),
    closedLast: stdout?.restore,
  });
  return {
    binding,
    closed: connection.closed,
    async close() {
      await connection.finish("closed", "owner");
      return connection.closed;
    },
  };
}

/** The launch binding, frozen; throws when it or the call deadline is not well formed. */
function launchBinding(options: ServeStdioOptions): HostBinding {
  const binding: HostBinding = Object.freeze({ ...options.binding });
  const deadline = options.deadlineMs;
  if (deadline !== undefined && (!Number.isSafeInteger(deadline) || deadline < 1))
    throw new McpError("invalid_limits", "deadlineMs must be a positive integer");
  for (const k of ["subject", "actor", "taskAuthorityRef", "preset"] as const)
    if (typeof binding[k] !== "string" || binding[k].length === 0)
      throw new McpError("invalid_binding", `binding.${k} must be a non-empty string`);
  return binding;
}
