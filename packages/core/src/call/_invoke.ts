// One call from its request to its recorded outcome, as named steps: admit,
// refuse what may not start, count it against its preset's concurrency,
// journal its start, run it, journal its final.

import { randomUUID } from "node:crypto";
import type { JsonObject } from "@rukh/json";
import type { NamedLock } from "@rukh/profile";
import type {
  HostBinding,
  InvocationOutcome,
  InvocationRequest,
  OutcomeReason,
} from "../contract/index.js";
import { NO_DIAGNOSTICS } from "../diagnostics/index.js";
import { inputsFields } from "../journal/index.js";
import { acquireSlot } from "../process/index.js";
import type { Planned, Rejection } from "./_admission.js";
import { admitRequest } from "./_admit-request.js";
import { budgetOf } from "./_budget.js";
import type { CoreHost } from "./_core-host.js";
import type { ExecutionContext } from "./_execution.js";
import { runManaged } from "./_managed-call.js";
import { runPassthrough } from "./_passthrough-call.js";
import { CANCEL_REASON, type Cause, type RunResult } from "./_verdict.js";

/** One call on its way: the host it runs on, who asked, and what. */
export interface Call {
  readonly host: CoreHost;
  readonly invocationId: string;
  readonly binding: HostBinding;
  /** What of the request the journal keeps: the surface it came from. */
  readonly request: Pick<InvocationRequest, "surface">;
  readonly startedAt: number;
}

/** A command's call: one on its way with what running it needs. */
interface CommandCall extends Call {
  readonly execution: ExecutionContext;
  readonly request: InvocationRequest;
  /** Resolves once the call's outcome has been handed back. */
  readonly settled: Promise<unknown>;
}

/** Runs one call on the host and resolves to its outcome, recorded in the journal unless the host is closed. */
export function invoke(
  host: CoreHost,
  execution: ExecutionContext,
  binding: HostBinding,
  request: InvocationRequest,
): Promise<InvocationOutcome> {
  const invocationId = randomUUID();
  // After close the journal is gone: the refusal is returned, not recorded.
  if (host.closed) return Promise.resolve(closedOutcome(invocationId));
  let handedBack!: () => void;
  const settled = new Promise<void>((resolve) => {
    handedBack = resolve;
  });
  const work = invokeOpen({
    host,
    execution,
    invocationId,
    binding,
    request,
    startedAt: Date.now(),
    settled,
  });
  work.finally(handedBack).catch(() => {});
  return pending(host, work);
}

/** The refusal of a call made after the host closed: returned, never recorded (the journal is gone). */
export function closedOutcome(invocationId: string): InvocationOutcome {
  return {
    invocationId,
    outcome: "rejected",
    reason: "core_closed",
    message: "the host is shutting down",
    diagnostics: NO_DIAGNOSTICS,
  };
}

/** Counts `work` among the host's calls until it ends: closing the host waits for it. */
export function pending(
  host: CoreHost,
  work: Promise<InvocationOutcome>,
): Promise<InvocationOutcome> {
  host.pending.add(work);
  work.finally(() => host.pending.delete(work)).catch(() => {});
  return work;
}

async function invokeOpen(call: CommandCall): Promise<InvocationOutcome> {
  let planned: Planned | Rejection;
  try {
    planned = await admitRequest(call.host, call.request, call.binding);
  } catch (e) {
    return unresolved(call, e);
  }
  if ("reject" in planned) return refuse(call, planned);
  return notStarting(call, planned) ?? (await runCounted(call, planned));
}

/**
 * An admission that failed on the state directory itself: the call is
 * finalized as not loaded. One that failed because a module the host
 * itself runs on is missing (a copy of the CLI without its dependencies)
 * says so: the installation, not the state directory, is what to repair.
 */
function unresolved(call: CommandCall, e: unknown): Promise<InvocationOutcome> {
  const { invocationId } = call;
  const code = (e as { code?: unknown } | null)?.code;
  const missing = code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND";
  call.host.sink.logger.error(
    { invocationId, err: e },
    missing
      ? "a module this host runs on is missing"
      : "cannot resolve the command in the state directory",
  );
  const name = missing ? /'([^']+)'/.exec((e as Error).message)?.[1] : undefined;
  return finalize(call, {
    command: undefined,
    outcome: outcomeOf(invocationId, undefined, {
      outcome: "execution_failed",
      reason: missing ? "spawn_failed" : "state_unavailable",
      message: missing
        ? `this installation is incomplete: ${name ?? "a module it needs"} cannot be found beside it (a copy without its node_modules?); install it again`
        : "the installed command could not be loaded",
      diagnostics: NO_DIAGNOSTICS,
    }),
    by: call.binding,
  });
}

/** The outcome of an admitted call that may not start: the host closed, or the call was cancelled first. */
function notStarting(call: CommandCall, planned: Planned): Promise<InvocationOutcome> | undefined {
  if (call.host.closed)
    return refuse(call, refusalOf(planned, "core_closed", "the host is shutting down"));
  const { request } = call;
  // A call cancelled before it started spawns nothing.
  const early: Cause | undefined = request.ownerSignal?.aborted
    ? "owner"
    : request.transportSignal?.aborted
      ? "transport"
      : request.signal?.aborted
        ? "client"
        : undefined;
  if (early === undefined) return undefined;
  return finalize(call, {
    command: undefined,
    outcome: outcomeOf(call.invocationId, planned.revisionId, {
      outcome: "cancelled",
      reason: CANCEL_REASON[early],
      message: "the call was cancelled before it started",
      diagnostics: NO_DIAGNOSTICS,
    }),
    by: call.binding,
  });
}

/** Counts the call against its preset in this host and on the state directory while it runs. */
async function runCounted(call: CommandCall, planned: Planned): Promise<InvocationOutcome> {
  const { host, binding } = call;
  const { maxConcurrency } = planned.preset;
  // No hidden queue: the check and the increment are one synchronous step.
  const inFlight = host.inFlightOf.get(binding.preset) ?? 0;
  if (inFlight >= maxConcurrency)
    return refuse(
      call,
      refusalOf(planned, "concurrency_limit", `at most ${maxConcurrency} calls may run at once`),
    );
  host.inFlightOf.set(binding.preset, inFlight + 1);
  let slot: NamedLock | null = null;
  try {
    // The same limit holds across every process on this state directory.
    slot = await acquireSlot(host.locks, binding.preset, maxConcurrency);
    if (slot === null)
      return refuse(
        call,
        refusalOf(
          planned,
          "concurrency_limit",
          `at most ${maxConcurrency} calls of preset "${binding.preset}" may run at once on this state directory`,
        ),
      );
    return await runStarted(call, planned);
  } finally {
    slot?.release();
    const left = host.inFlightOf.get(binding.preset)! - 1;
    if (left === 0) host.inFlightOf.delete(binding.preset);
    else host.inFlightOf.set(binding.preset, left);
  }
}

/** Journals the start, runs the command the way its mapping says, and journals the final. */
async function runStarted(call: CommandCall, planned: Planned): Promise<InvocationOutcome> {
  const { invocationId, request } = call;
  const { revisionId } = planned;
  // A call whose start is not on disk is never run: a host crash would leave no trace of it.
  const started = await recordStart(call, {
    command: planned.command.identity,
    revisionId,
    digest: planned.digest,
    inputs: planned.validated.values as JsonObject,
    recordInputs: planned.recordInputs,
    dev: planned.dev,
  });
  if (!started) return journalFailed(invocationId, revisionId);
  // The host closed while the start was being flushed: its cancel of running calls missed this one.
  if (call.host.closed)
    return finalize(call, {
      command: planned.command.identity,
      outcome: outcomeOf(invocationId, revisionId, {
        outcome: "cancelled",
        reason: CANCEL_REASON.owner,
        message: "the call was cancelled before it started",
        diagnostics: NO_DIAGNOSTICS,
      }),
    });
  try {
    request.onStart?.(invocationId);
  } catch {}
  const budget = budgetOf(
    call.startedAt,
    deadlineOf(planned.preset.deadlineMs, request.deadlineMs),
  );
  const run = planned.command.execute.mapping === "passthrough" ? runPassthrough : runManaged;
  const result = await run(call.execution, {
    invocationId,
    admitted: planned,
    request,
    budget,
    settled: call.settled,
  });
  const outcome = outcomeOf(invocationId, revisionId, result);
  // On disk before the final: a call the journal says ended has its result where it can be read.
  if (outcome.commandResult !== undefined)
    await call.host.results.keep(
      {
        invocationId,
        command: planned.command.identity,
        binding: call.binding,
        outcome: outcome.outcome,
        result: outcome.commandResult,
      },
      planned.keptResults,
    );
  return finalize(call, { command: planned.command.identity, outcome });
}

/** What a start record says of a call beside who made it. */
export interface StartOf {
  readonly command: string;
  readonly revisionId: string;
  readonly digest: string;
  readonly inputs: JsonObject;
  /** Whether the owner's `journal.recordInputs` keeps the inputs themselves. */
  readonly recordInputs: boolean;
  readonly dev: boolean;
}

/** Appends the call's start record; `false` when the journal cannot take it. */
export function recordStart(call: Call, start: StartOf): Promise<boolean> {
  const { host, binding, request } = call;
  return host.journal.appendSoftly({
    type: "start",
    invocationId: call.invocationId,
    at: new Date(call.startedAt).toISOString(),
    host: host.id,
    pid: process.pid,
    command: start.command,
    revisionId: start.revisionId,
    digest: start.digest,
    surface: request.surface,
    subject: binding.subject,
    actor: binding.actor,
    taskAuthorityRef: binding.taskAuthorityRef,
    preset: binding.preset,
    ...inputsFields(start.inputs, start.recordInputs),
    ...(start.dev && { dev: true as const }),
  });
}

/** The outcome of a call whose start the journal could not take: nothing was run. */
export function journalFailed(
  invocationId: string,
  revisionId: string | undefined,
): InvocationOutcome {
  return outcomeOf(invocationId, revisionId, {
    outcome: "execution_failed",
    reason: "journal_failed",
    message: "the invocation journal cannot be written (is the disk full?); nothing was run",
    diagnostics: NO_DIAGNOSTICS,
  });
}

/** A call's final record: its command, when known, and who made it when it has no start record. */
interface Final {
  readonly command: string | undefined;
  readonly outcome: InvocationOutcome;
  readonly by?: HostBinding;
}

/** Records the final; `by` for a call that has no start record to name who made it. */
export async function finalize(
  call: Call,
  { command, outcome, by }: Final,
): Promise<InvocationOutcome> {
  const { host, invocationId } = call;
  await host.journal.final(invocationId, command, outcome, by);
  // The author's view of a result that missed its declaration; the journal keeps pointers only.
  if (outcome.resultIssues !== undefined)
    host.sink.logger.warn(
      { invocationId, command, reason: outcome.reason, issues: outcome.resultIssues },
      "the command's result does not match its declaration",
    );
  return outcome;
}

/** Finalizes a refusal under the binding that asked. */
export function refuse(call: Call, r: Rejection): Promise<InvocationOutcome> {
  return finalize(call, {
    command: r.identity,
    outcome: rejection(call.invocationId, r),
    by: call.binding,
  });
}

/** A refusal of an admitted call, naming its revision and command. */
function refusalOf(planned: Planned, reason: OutcomeReason, message: string): Rejection {
  return {
    reject: reason,
    message,
    revisionId: planned.revisionId,
    identity: planned.command.identity,
  };
}

export function outcomeOf(
  invocationId: string,
  revisionId: string | undefined,
  r: RunResult,
): InvocationOutcome {
  return { invocationId, ...(revisionId !== undefined && { revisionId }), ...r };
}

function rejection(invocationId: string, r: Rejection): InvocationOutcome {
  return outcomeOf(invocationId, r.revisionId, {
    // A package that fails its check is a failure of the installation, not a refusal of the call.
    outcome: r.reject === "store_corrupt" ? "execution_failed" : "rejected",
    reason: r.reject,
    message: r.message,
    ...(r.issues !== undefined && { issues: r.issues }),
    diagnostics: NO_DIAGNOSTICS,
  });
}

/** The shorter of the preset's deadline and the caller's, when the caller's is a positive integer. */
function deadlineOf(preset: number, caller: number | undefined): number {
  return caller !== undefined && Number.isSafeInteger(caller) && caller > 0
    ? Math.min(preset, caller)
    : preset;
}
