// The contract: what the adapters and the core say to each other, and the
// words every other room shares. It imports no other room.
//
// 1. _api.ts       who a host is bound to, what one call asks, what the core promises
// 2. _outcome.ts   what a call ends as: outcomes, reasons, diagnostics, the envelope
// 3. _errors.ts    the core's own failures, never a call's outcome (CoreError)
// 4. _limits.ts    the documented bounds of what the core reads, writes and waits for
// 5. _throttle.ts  progress reports as an adapter may pass them on
//
// The door: what the other rooms of the core use from here.

export type {
  BuiltinEnd,
  BuiltinRequest,
  HostBinding,
  InvocationCore,
  InvocationCoreOptions,
  InvocationHost,
  InvocationHostOptions,
  InvocationRequest,
} from "./_api.js";
export { checkBinding, OWNER_AUTHORITY } from "./_api.js";
export { CoreError } from "./_errors.js";
export {
  CANCEL_GRACE_MS,
  CLEANUP_WAIT_MS,
  DIAGNOSTICS_MAX_BYTES,
  JOURNAL_INDEX_MAX_BYTES,
  JOURNAL_MAX_BYTES,
  JOURNAL_RECORD_MAX_BYTES,
  LOST_HOST_SWEEP_MS,
  READY_PROCESS_IDLE_MS,
  READY_PROCESSES_PER_LAUNCH,
  RECORDED_INPUTS_MAX_BYTES,
  TERMINATE_GRACE_MS,
} from "./_limits.js";
export type {
  InvocationDiagnostics,
  InvocationOutcome,
  OutcomeKind,
  OutcomeReason,
  ResultIssue,
} from "./_outcome.js";
export { OUTCOME_KINDS, OUTCOME_REASONS, RESULT_ISSUES_MAX } from "./_outcome.js";
