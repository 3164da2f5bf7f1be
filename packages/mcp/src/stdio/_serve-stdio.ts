// The stdio host: serves one MCP client on a process's stdin and stdout
// under one launch binding, fixed for the life of the process.

import type { Readable, Writable } from "node:stream";
import type { HostBinding } from "@rukh/core";
import {
  hostSettings,
  McpError,
  type McpHostOptions,
  NO_LOGGER,
  openCore,
  ownerController,
  stateOf,
} from "../hosting/index.js";
import { bindingHandlers } from "../tools/index.js";
import { type McpCloseReason, StdioConnection } from "./_connection.js";
import { divertStdout } from "./_stdout.js";

/**
 * Options of {@link serveStdio}: those of every host, the launch binding,
 * and the streams it is reached on.
 *
 * @example
 * const options: ServeStdioOptions = { state: resolveStateDir({ brand: "acme" }),
 *   binding: { subject: "alice", actor: "mcp", taskAuthorityRef: "local", preset: "default" },
 *   endpoint: mcpEndpoint(config, "claude") };
 */
export interface ServeStdioOptions extends McpHostOptions {
  /** The launch binding: every call runs under it, fixed for the life of the process. */
  readonly binding: HostBinding;
  /** Default `process.stdin`. */
  readonly input?: Readable;
  /** Default `process.stdout`; while serving it, other writes to it are diverted to stderr. */
  readonly output?: Writable;
}

/**
 * A running stdio MCP host.
 *
 * @example
 * const host = await serveStdio({ state, binding });
 * await host.closed;
 */
export interface McpStdioHost {
  /** The immutable launch binding. */
  readonly binding: HostBinding;
  /** Settles once the transport closed and every owned invocation was finalized. */
  readonly closed: Promise<McpCloseReason>;
  /** Closes the transport, cancels running invocations (owner cancel) and finalizes. */
  close(): Promise<McpCloseReason>;
}

/**
 * Serves MCP on stdio for one immutable launch binding: newline-delimited
 * JSON-RPC read with the limits of {@link MCP_LIMITS} (or the endpoint's
 * tighter ones), protocol version 2026-07-28 per request
 * (`server/discover`, `tools/list`, `tools/call`, `subscriptions/listen`)
 * and 2025-11-25/2025-06-18 through `initialize` (with `ping`), all entering
 * the same invocation core. Stdout carries protocol messages only.
 *
 * @example
 * const host = await serveStdio({
 *   state: resolveStateDir({ brand: "acme" }),
 *   binding: { subject: "alice", actor: "mcp", taskAuthorityRef: "local", preset: "default" },
 *   endpoint: mcpEndpoint(config, "claude"),
 * });
 * await host.closed;
 */
export async function serveStdio(options: ServeStdioOptions): Promise<McpStdioHost> {
  const settings = hostSettings(options);
  const binding = launchBinding(options.binding);
  const logger = options.logger ?? NO_LOGGER;
  const state = stateOf(options.state);
  const core = await openCore({ state, settings, readyProcesses: options.readyProcesses });
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const stdout = output === process.stdout ? divertStdout() : undefined;
  const owner = ownerController();
  const transport = new AbortController();
  const connection = new StdioConnection({
    input,
    output,
    rawWrite: stdout?.write,
    limits: settings.limits,
    logger,
    core,
    subject: binding.subject,
    owner,
    transport,
    handlers: (notify) =>
      bindingHandlers({
        state,
        core: core.bound(binding),
        ownerSignal: owner.signal,
        transportSignal: transport.signal,
        settings,
        notify,
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

/** The launch binding, frozen; throws `invalid_binding` when it is not well formed. */
function launchBinding(given: HostBinding): HostBinding {
  const binding: HostBinding = Object.freeze({ ...given });
  for (const k of ["subject", "actor", "taskAuthorityRef", "preset"] as const)
    if (typeof binding[k] !== "string" || binding[k].length === 0)
      throw new McpError("invalid_binding", `binding.${k} must be a non-empty string`);
  return binding;
}
