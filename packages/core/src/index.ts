// The complete public surface of @rukh/core: any export added here becomes public API.

export type {
  BoundInvocationCore,
  BuiltinEnd,
  BuiltinRequest,
  CommandRef,
  HostBinding,
  InvocationCore,
  InvocationCoreOptions,
  InvocationHost,
  InvocationHostOptions,
  InvocationProgress,
  InvocationRequest,
  JsonArguments,
} from "./contract/_api.js";
export { OWNER_AUTHORITY } from "./contract/_api.js";
export type { CoreErrorCode } from "./contract/_errors.js";
export { CORE_ERROR_CODES, CoreError } from "./contract/_errors.js";
export {
  CANCEL_GRACE_MS,
  CLEANUP_WAIT_MS,
  DIAGNOSTICS_MAX_BYTES,
  JOURNAL_INDEX_MAX_BYTES,
  JOURNAL_MAX_BYTES,
  JOURNAL_RECORD_MAX_BYTES,
  LOST_HOST_SWEEP_MS,
  READY_PROCESS_IDLE_MS,
  RECORDED_INPUTS_MAX_BYTES,
  TERMINATE_GRACE_MS,
} from "./contract/_limits.js";
export type {
  InvocationDiagnostics,
  InvocationOutcome,
  OutcomeDiagnostic,
  OutcomeEnvelope,
  OutcomeKind,
  OutcomeReason,
  ResourceLimitName,
  ResultIssue,
} from "./contract/_outcome.js";
export {
  OUTCOME_KINDS,
  OUTCOME_REASONS,
  outcomeDiagnostic,
  outcomeEnvelope,
  RESULT_ISSUES_MAX,
} from "./contract/_outcome.js";
export type { ProgressThrottle } from "./contract/_throttle.js";
export { throttleProgress } from "./contract/_throttle.js";
export type { FollowOptions, RunEvent } from "./history/_follow.js";
export { followRuns } from "./history/_follow.js";
export { findRun, listRuns, RUNS_MAX_LIMIT } from "./history/_runs.js";
export { createInvocationCore, openInvocationHost } from "./host/_core.js";
export type { JournalReport } from "./journal/_archive.js";
export { describeJournal } from "./journal/_archive.js";
export type {
  JournalContents,
  JournalDiagnostics,
  JournalFinalRecord,
  JournalProcessRecord,
  JournalRecord,
  JournalStartRecord,
} from "./journal/_journal.js";
export { readJournal } from "./journal/_journal.js";
export type { JournalRepair } from "./journal/_recovery.js";
export { repairJournal } from "./journal/_recovery.js";
export type { KeptResult, ResultLimits } from "./journal/_results.js";
export { readKeptResult, resultLimitsOf } from "./journal/_results.js";
export type { RunFilter, RunSummary } from "./journal/_run-model.js";
export type { TaskRecord } from "./journal/_tasks.js";
export { findTask, listTasks, newTaskId, recordTask } from "./journal/_tasks.js";
export type { ConfinementReport } from "./process/_confinement.js";
export {
  describeConfinement,
  SANDBOX_PROGRAM_CANDIDATES,
  strictUnavailable,
} from "./process/_confinement.js";
