// What running an admitted call needs from its host: the one thing both ways
// of running a command (managed, passthrough) are given.

import type { CommandProcess } from "@rukh/ipc";
import type { InvocationRequest } from "../contract/index.js";
import type { InvocationDiagnosticsBudget } from "../diagnostics/index.js";
import type { ProcessHooks, ProcessRequest, Watchdog } from "../process/index.js";
import type { Planned } from "./_admission.js";
import type { Budget } from "./_budget.js";
import type { Cause } from "./_verdict.js";

/** The host's part in running a call. */
export interface ExecutionContext {
  /** The complete environment of a command process whose plan does not set one. */
  readonly env: Readonly<Record<string, string>>;
  /** Cancels of the calls running now; `close()` calls each with `owner`. */
  readonly running: Set<(cause: Cause) => void>;
  /** A call's diagnostics budget in the owner's log. */
  diagnostics(invocationId: string, identity: string): InvocationDiagnosticsBudget;
  /**
   * Starts the process of a managed call (or gives it one kept ready), its
   * output going to `hooks`; a held one waits for the call to release it.
   */
  launch(request: ProcessRequest, hooks: ProcessHooks): Promise<CommandProcess | string>;
  /**
   * Checks the call's stored package once more, at hand-over: `null` when it
   * is what was signed, else why not (nothing of it may then run).
   */
  checkStore(planned: Planned): Promise<string | null>;
  /** Journals a started process (so recovery can end it) and gives it a watchdog where needed. */
  recordProcess(
    invocationId: string,
    planned: Planned,
    pid: number | undefined,
    leadsGroup: boolean,
  ): Watchdog | undefined;
}

/** One admitted call as a way of running it (managed, passthrough) is handed it. */
export interface AdmittedCall {
  readonly invocationId: string;
  readonly admitted: Planned;
  readonly request: InvocationRequest;
  readonly budget: Budget;
  /** Resolves once the call's outcome has been handed back (its final on disk). */
  readonly settled: Promise<unknown>;
}
