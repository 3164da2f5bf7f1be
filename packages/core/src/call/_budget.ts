// A call's time: its budget, when a cancel escalates, and the wiring of the
// three cancellation sources (client, owner, deadline).

import type { InvocationRequest } from "../contract/index.js";
import { CANCEL_GRACE_MS, TERMINATE_GRACE_MS } from "../contract/index.js";
import type { Cause } from "./_verdict.js";

/**
 * A call's time budget: at `softAt` the deadline cancel is sent, and by
 * `hardAt` (start + the preset's `deadlineMs`) the process group is killed.
 * The gap reserves room for the escalation inside the same budget.
 */
export interface Budget {
  readonly softAt: number;
  readonly hardAt: number;
}

export function budgetOf(startedAt: number, deadlineMs: number): Budget {
  const reserve = Math.min(CANCEL_GRACE_MS + TERMINATE_GRACE_MS, Math.floor(deadlineMs / 2));
  return { softAt: startedAt + deadlineMs - reserve, hardAt: startedAt + deadlineMs };
}

/** When a cancel accepted at `now` escalates: SIGTERM after the grace, SIGKILL after that, never past `hardAt`. */
export function escalation(budget: Budget, now: number): { termAt: number; killAt: number } {
  const termShare = Math.min(TERMINATE_GRACE_MS, Math.floor((budget.hardAt - budget.softAt) / 3));
  const termAt = Math.max(now, Math.min(now + CANCEL_GRACE_MS, budget.hardAt - termShare));
  const killAt = Math.max(termAt, Math.min(termAt + TERMINATE_GRACE_MS, budget.hardAt));
  return { termAt, killAt };
}

/** What {@link watchCancellation} wires together for one call. */
export interface CancellationWatch {
  /** Carries the client's, owner's and transport's signals. */
  readonly request: InvocationRequest;
  readonly budget: Budget;
  /** The host's running calls, which `close()` cancels. */
  readonly running: Set<(cause: Cause) => void>;
  /** Called with each cause that asks the call to stop (more than once is possible). */
  readonly onCancel: (cause: Cause) => void;
  /** Called once the budget's hard end has passed. */
  readonly onHardDeadline: () => void;
}

/**
 * Wires the client's and owner's signals, the soft deadline and the hard end
 * of the budget to one call, and registers it with the host's running calls
 * (which `close()` cancels); returns the function that detaches all of it.
 */
export function watchCancellation({
  request,
  budget,
  running,
  onCancel,
  onHardDeadline,
}: CancellationWatch): () => void {
  const client = () => onCancel("client");
  const owner = () => onCancel("owner");
  const transport = () => onCancel("transport");
  const timer = setTimeout(() => onCancel("deadline"), Math.max(0, budget.softAt - Date.now()));
  const hard = setTimeout(onHardDeadline, Math.max(0, budget.hardAt - Date.now()));
  request.signal?.addEventListener("abort", client, { once: true });
  request.ownerSignal?.addEventListener("abort", owner, { once: true });
  request.transportSignal?.addEventListener("abort", transport, { once: true });
  running.add(onCancel);
  if (request.ownerSignal?.aborted) queueMicrotask(owner);
  if (request.transportSignal?.aborted) queueMicrotask(transport);
  if (request.signal?.aborted) queueMicrotask(client);
  return () => {
    clearTimeout(timer);
    clearTimeout(hard);
    request.signal?.removeEventListener("abort", client);
    request.ownerSignal?.removeEventListener("abort", owner);
    request.transportSignal?.removeEventListener("abort", transport);
    running.delete(onCancel);
  };
}
