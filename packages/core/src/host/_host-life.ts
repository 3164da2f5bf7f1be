// A core host's life: it starts holding its liveness lock, finalizes what
// hosts that are gone left open (and, when asked, goes on doing so while it
// lives), and at its close cancels and waits for its calls before it lets go
// of the lock.

import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { type NamedLock, stateDirMessage, stateDirProblems, stateLocks } from "@rukh/profile";
import type { CoreHost } from "../call/index.js";
import type { InvocationHostOptions } from "../contract/index.js";
import {
  CoreError,
  DIAGNOSTICS_MAX_BYTES,
  READY_PROCESS_IDLE_MS,
  READY_PROCESSES_PER_LAUNCH,
} from "../contract/index.js";
import { DiagnosticsSink } from "../diagnostics/index.js";
import {
  HostJournal,
  ownerRetention,
  type RecoveryContext,
  ResultKeeper,
  recoverLostHosts,
} from "../journal/index.js";
import { ReadyProcesses } from "../process/index.js";
import { type Repeating, sweepLostHosts } from "./_lost-host-sweep.js";

const hostsInThisProcess = new Set<string>();

/** A started host, the lock whose holding says it lives, and the calls it recovered. */
export interface OpenedHost {
  readonly host: CoreHost;
  readonly liveness: NamedLock;
  /** The invocations of hosts that are gone which the start finalized as `host_lost`. */
  readonly recovered: string[];
  /** The sweep for lost hosts, when the options ask for one. */
  readonly sweep: Repeating | undefined;
}

/**
 * Starts a host: its liveness lock, diagnostics sink and journal segment,
 * then finalizes what hosts that are gone left open, and starts the sweep
 * that goes on doing so when the options ask for it.
 */
export async function openHost(options: InvocationHostOptions): Promise<OpenedHost> {
  const state = options.state;
  const id = randomUUID();
  const journalRoot = await journalRootOf(state);
  // Held for this host's whole life, from before its segment exists: others
  // take it to learn that the host is gone. Keyed on where the journal is,
  // so hosts sharing a journal directory see each other.
  const locks = stateLocks(realpathSync(journalRoot), state.locks);
  const liveness = await locks.hold("host", id);
  if (liveness === null)
    throw new CoreError("state_unavailable", "cannot hold this host's liveness lock");
  const sink = new DiagnosticsSink(journalRoot);
  // Read only when archiving begins a new archive segment: a call does not pay for it.
  const retention = ownerRetention(state);
  const journal = new HostJournal({
    stateRoot: journalRoot,
    locks,
    host: id,
    logger: sink.logger,
    retention,
  });
  hostsInThisProcess.add(id);
  // Recovery: a start without a final whose host is gone never ran to an outcome we know.
  const recovery: RecoveryContext = {
    stateRoot: journalRoot,
    locks,
    host: id,
    skip: hostsInThisProcess,
    logger: sink.logger,
    retention,
  };
  const recovered = await recoverLostHosts(recovery);
  const sweep = options.sweepLostHosts === true ? sweepLostHosts(recovery) : undefined;
  const readyMax = options.readyProcesses ?? 0;
  const host: CoreHost = {
    options,
    id,
    journalRoot,
    locks,
    sink,
    journal,
    results: new ResultKeeper(journalRoot, id, sink.logger),
    diagnosticsMax: Math.min(
      options.diagnosticsMaxBytes ?? DIAGNOSTICS_MAX_BYTES,
      DIAGNOSTICS_MAX_BYTES,
    ),
    env: options.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    packages: new Map(),
    running: new Set(),
    ready:
      readyMax > 0
        ? new ReadyProcesses(
            { max: readyMax, perLaunch: READY_PROCESSES_PER_LAUNCH, idleMs: READY_PROCESS_IDLE_MS },
            () => state.activeRevisionId(),
          )
        : undefined,
    pending: new Set(),
    inFlightOf: new Map(),
    closed: false,
  };
  return { host, liveness, recovered, sweep };
}

/**
 * Where the host's journal, log and probe cache go, made if missing: the
 * owner's journal directory (mode 0700, refused like an unsafe state
 * directory when another user could change it), else the state directory.
 * A read-only state directory without one is refused with the fix.
 */
async function journalRootOf(state: InvocationHostOptions["state"]): Promise<string> {
  let places: Awaited<ReturnType<typeof state.places>>;
  try {
    places = await state.places();
  } catch (e) {
    throw new CoreError("state_unavailable", (e as Error).message, { cause: e });
  }
  if (places.refusal !== undefined) throw new CoreError("state_unavailable", places.refusal);
  if (places.journalDir === undefined) {
    await mkdir(state.root, { recursive: true });
    return state.root;
  }
  await mkdir(places.journalRoot, { recursive: true, mode: 0o700 });
  // Checked as the state directory is, for what it records and the keys it may hold.
  const unsafe = stateDirProblems(places.journalRoot);
  if (unsafe.length > 0)
    throw new CoreError(
      "state_unavailable",
      stateDirMessage(places.journalRoot, unsafe, "journal directory"),
    );
  return places.journalRoot;
}

/**
 * Stops the sweep, cancels the running calls, waits for every call and for
 * a sweep under way to finish, then lets go of the host.
 */
export async function closeHost({ host, liveness, sweep }: OpenedHost): Promise<void> {
  if (host.closed) return;
  host.closed = true;
  const swept = sweep?.stop();
  host.ready?.close();
  for (const cancel of [...host.running]) cancel("owner");
  await Promise.allSettled([...host.pending]);
  // It writes to the log and archives: it ends before they close.
  await swept;
  await host.results.settled();
  await host.journal.close();
  host.sink.close();
  hostsInThisProcess.delete(host.id);
  liveness.release();
}
