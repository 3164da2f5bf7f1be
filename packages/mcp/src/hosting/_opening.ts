// What every MCP host opens before it serves, whatever its transport: the
// state directory, the server info it reports, the invocation core and the
// owner's shutdown signal; and how it waits for the work in its hands.

import { setMaxListeners } from "node:events";
import { createInvocationCore, type HostBinding, type InvocationCore } from "@rukh/core";
import { StateDirectory } from "@rukh/profile";
import { McpError } from "./_errors.js";
import { MCP_READY_PROCESSES } from "./_limits.js";

const HOST_VERSION = "0.1.0";

/** The `serverInfo` a host reports to clients. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

/** The server info to report: the one given, else `rukh` at this version. */
export function serverInfoOf(given: Partial<ServerInfo> | undefined): ServerInfo {
  return Object.freeze({
    name: given?.name ?? "rukh",
    version: given?.version ?? HOST_VERSION,
  });
}

/** The state directory given, or the one at the root path given. */
export function stateOf(state: StateDirectory | string): StateDirectory {
  return typeof state === "string" ? new StateDirectory(state) : state;
}

/** What a host opens its invocation core with. */
export interface CoreOpening {
  readonly state: StateDirectory;
  readonly binding: HostBinding;
  readonly devExtensions?: readonly string[] | undefined;
  readonly readyProcesses?: number | undefined;
}

/**
 * The host's invocation core, with no development links but those named and
 * {@link MCP_READY_PROCESSES} ready processes unless told otherwise; throws
 * `state_unavailable` when it cannot be opened. A host serves for long, so
 * its core sweeps for lost hosts: the calls of a host that died on the state
 * directory (a replica killed mid-call) get their final while it serves.
 */
export async function openCore(opening: CoreOpening): Promise<InvocationCore> {
  try {
    return await createInvocationCore({
      state: opening.state,
      binding: opening.binding,
      devExtensions: opening.devExtensions ?? [],
      readyProcesses: opening.readyProcesses ?? MCP_READY_PROCESSES,
      sweepLostHosts: true,
    });
  } catch (e) {
    throw new McpError(
      "state_unavailable",
      `cannot open the invocation core: ${(e as Error).message}`,
      { cause: e },
    );
  }
}

/** The controller of the owner's shutdown: aborted, every running call ends `owner_cancel`. */
export function ownerController(): AbortController {
  const owner = new AbortController();
  // Each request in flight listens for the host's shutdown until it ends: as
  // many as run at once (bounded by the presets' concurrency), never a leak.
  setMaxListeners(0, owner.signal);
  return owner;
}

/** Settles once `work` is empty: each piece removes itself when it settles, and may add more. */
export async function settled(work: ReadonlySet<Promise<void>>): Promise<void> {
  while (work.size > 0) await Promise.allSettled([...work]);
}
