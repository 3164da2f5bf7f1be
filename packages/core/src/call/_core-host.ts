// What every call on one invocation core shares: the host's identity and
// locks, its journal and diagnostics, and the calls running now. A model
// file: the steps of a call read it, and it imports none of them.

import type { ExtensionDescriptor } from "@rukh/descriptor";
import type { StateLocks } from "@rukh/profile";
import type { InvocationHostOptions } from "../contract/index.js";
import type { DiagnosticsSink } from "../diagnostics/index.js";
import type { HostJournal, ResultKeeper } from "../journal/index.js";
import type { ReadyProcesses } from "../process/index.js";
import type { Cause } from "./_verdict.js";

/** One host of an invocation core over its state directory, from its start to its close. */
export interface CoreHost {
  readonly options: InvocationHostOptions;
  /** This host's id in the journal and in its liveness lock. */
  readonly id: string;
  /**
   * The directory holding this host's `journal/`, `logs/` and probe cache:
   * the owner's journal directory when one is set, else the state
   * directory (`StatePlaces.journalRoot`). Its locks are keyed on it.
   */
  readonly journalRoot: string;
  readonly locks: StateLocks;
  readonly sink: DiagnosticsSink;
  readonly journal: HostJournal;
  /** Keeps each call's validated result, beside the journal, to be read again. */
  readonly results: ResultKeeper;
  /** The per-invocation diagnostics cap, never above {@link DIAGNOSTICS_MAX_BYTES}. */
  readonly diagnosticsMax: number;
  /** The complete environment of a command process whose plan does not set one. */
  readonly env: Readonly<Record<string, string>>;
  /** Stored packages read so far, by digest: the descriptor and the package's directory. */
  readonly packages: Map<string, [ExtensionDescriptor, string]>;
  /** Cancels of the calls running now; closing the host calls each with `owner`. */
  readonly running: Set<(cause: Cause) => void>;
  /** Processes kept started ahead of a call, when the options ask for any. */
  readonly ready: ReadyProcesses | undefined;
  /** The calls not yet finished, which closing the host waits for. */
  readonly pending: Set<Promise<unknown>>;
  /** Calls running per preset (a remote host serves many bindings from one core). */
  readonly inFlightOf: Map<string, number>;
  /** Set once by close: a call after it is refused, and nothing is journaled. */
  closed: boolean;
}
