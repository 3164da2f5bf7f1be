// What every MCP host opens before it serves, whatever its transport: the
// state directory, the invocation core and the owner's shutdown signal; and
// how it waits for the work in its hands.

import { setMaxListeners } from "node:events";
import { type InvocationHost, openInvocationHost } from "@rukh/core";
import { StateDirectory } from "@rukh/profile";
import { McpError } from "./_errors.js";
import { MCP_READY_PROCESSES } from "./_limits.js";
import type { HostSettings } from "./_settings.js";

/** The state directory given, or the one at the root path given. */
export function stateOf(state: StateDirectory | string): StateDirectory {
  return typeof state === "string" ? new StateDirectory(state) : state;
}

/**
 * The invocation core as a host holds it: with no binding of its own, every
 * call runs under the binding it names (`bound`), a stdio client's launch
 * binding or an HTTP request's.
 */
export type HostCore = Pick<InvocationHost, "bound" | "close">;

/** What a host opens its invocation core with. */
export interface CoreOpening {
  readonly state: StateDirectory;
  readonly settings: HostSettings;
  readonly readyProcesses?: number | undefined;
}

/**
 * The host's invocation core, with no development links but those its
 * endpoint names and {@link MCP_READY_PROCESSES} ready processes unless told
 * otherwise; throws `state_unavailable` when it cannot be opened. A host
 * serves for long, so its core sweeps for lost hosts: the calls of a host
 * that died on the state directory (a replica killed mid-call) get their
 * final while it serves.
 */
export async function openCore(opening: CoreOpening): Promise<HostCore> {
  try {
    return await openInvocationHost({
      state: opening.state,
      devExtensions: opening.settings.endpoint.devExtensions ?? [],
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
