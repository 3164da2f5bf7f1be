// A host's settings: what the endpoint it serves sets (the owner
// configuration's, as `@rukh/profile` reads it) and what it reports of
// itself, read once from the options both hosts share and passed whole from
// the host down to its tools.

import type { McpEndpoint, StateDirectory } from "@rukh/profile";
import { McpError } from "./_errors.js";
import { type McpLimits, resolveLimits } from "./_limits.js";
import type { McpLogger } from "./_logger.js";

const HOST_VERSION = "0.1.0";

/**
 * What an endpoint of the owner configuration sets for the host that serves
 * it: how its tools are named, the longest a call may run, tighter transport
 * limits, the development links it may see, and what clients are told when
 * they connect. What `mcpEndpoint(config, name)` of `@rukh/profile` returns
 * is one: pass it whole. Left out, a member is the profile's naming, the
 * preset's deadline alone, {@link MCP_LIMITS}, no development link, no
 * instructions.
 *
 * @example
 * const endpoint: McpEndpointSettings = mcpEndpoint(config, "claude") ?? {};
 * await serveStdio({ state, binding, endpoint });
 */
export type McpEndpointSettings = Partial<
  Pick<McpEndpoint, "naming" | "deadlineMs" | "limits" | "devExtensions" | "instructions">
>;

/**
 * The options both hosts take: {@link ServeStdioOptions} and
 * {@link ServeHttpOptions} add only how they are reached.
 *
 * @example
 * const options: McpHostOptions = { state: resolveStateDir({ brand: "acme" }),
 *   endpoint: mcpEndpoint(config, "claude"), serverInfo: { name: "acme", version: "1.2.0" } };
 */
export interface McpHostOptions {
  /** The state directory, or its root path. */
  readonly state: StateDirectory | string;
  /** The endpoint served; default none: the profile's naming and the default limits. */
  readonly endpoint?: McpEndpointSettings | undefined;
  /** Command processes kept started ahead of a call (default {@link MCP_READY_PROCESSES}; 0 for none). */
  readonly readyProcesses?: number;
  /** `serverInfo` reported to clients; default `{ name: "rukh", version }`. */
  readonly serverInfo?: ServerInfo;
  /** Where the host's own log lines go (never stdout); default nowhere. */
  readonly logger?: McpLogger;
}

/** The `serverInfo` a host reports to clients. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/**
 * What a host serves with, read once from its options by
 * {@link hostSettings}, and passed whole down to its tools.
 */
export interface HostSettings {
  /**
   * The endpoint served, as given: its naming, deadline, development links
   * and instructions are read from it where they are used.
   */
  readonly endpoint: McpEndpointSettings;
  /** The endpoint's limits over {@link MCP_LIMITS}: what the transport, the protocol and a page of tools hold to. */
  readonly limits: McpLimits;
  /** What the host reports of itself: the one given, else `rukh` at this version. */
  readonly serverInfo: ServerInfo;
}

/**
 * A host's settings from its options; throws `invalid_limits` for limits
 * looser than the defaults or a call deadline that is not a positive integer.
 */
export function hostSettings(options: McpHostOptions): HostSettings {
  const endpoint = options.endpoint ?? {};
  const limits = resolveLimits(endpoint.limits);
  const deadline = endpoint.deadlineMs;
  if (deadline !== undefined && (!Number.isSafeInteger(deadline) || deadline < 1))
    throw new McpError("invalid_limits", "deadlineMs must be a positive integer");
  return Object.freeze({
    endpoint,
    limits,
    serverInfo: Object.freeze({
      name: options.serverInfo?.name ?? "rukh",
      version: options.serverInfo?.version ?? HOST_VERSION,
    }),
  });
}
