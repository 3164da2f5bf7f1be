import type { CommandResult, CommandResultIssueCode } from "@rukh/command-result";
import type { OutcomeEnvelope as Envelope, OutcomeKind } from "@rukh/profile/projection";

// The outcomes and their envelope have one home, beside the schema every tool declares for them.
export type { OutcomeDiagnostic, OutcomeKind } from "@rukh/profile/projection";
export { OUTCOME_KINDS, outcomeDiagnostic, outcomeEnvelope } from "@rukh/profile/projection";

import type { InputIssueCode } from "@rukh/descriptor";
import type { ValidationIssue } from "@rukh/json";

/**
 * Every stable `reason` code, grouped by the outcome it goes with (see
 * docs/core.md for the table). The set is closed: a reason not listed here is
 * never produced.
 *
 * @example
 * if (outcome.outcome === "rejected" && outcome.reason === "concurrency_limit") retryLater();
 */
export const OUTCOME_REASONS = {
  succeeded: ["completed"],
  command_failed: ["command_reported", "exit_status"],
  execution_failed: [
    "invalid_result",
    "result_too_large",
    "missing_result",
    "exit_nonzero_after_success",
    "no_completion",
    "crashed",
    "protocol_error",
    "spawn_failed",
    "cleanup_failed",
    "host_lost",
    "state_unavailable",
    "resource_limit",
    "journal_failed",
    "store_corrupt",
  ],
  rejected: [
    "invalid_input",
    "not_found",
    "not_exposed",
    "obsolete_revision",
    "preset_denied",
    "feature_unsupported",
    "interaction_required",
    // No longer returned (optional interaction now runs over MCP); earlier
    // versions' journal records carry it, and the journal reader checks this set.
    "interaction_unavailable",
    "enforcement_unavailable",
    "concurrency_limit",
    "passthrough_cli_only",
    "core_closed",
  ],
  cancelled: ["client_cancel", "owner_cancel", "transport_lost", "deadline"],
} as const;

/**
 * One of the codes in {@link OUTCOME_REASONS}.
 *
 * @example
 * const reason: OutcomeReason = "deadline";
 */
export type OutcomeReason = (typeof OUTCOME_REASONS)[OutcomeKind][number];

/**
 * What happened to the child's output: byte counts of what it wrote and how
 * much of that (and of its `log` frames) did not fit the per-invocation cap.
 *
 * @example
 * const d: InvocationDiagnostics = { stdoutBytes: 12, stderrBytes: 0, droppedBytes: 0, logFile: "/home/u/.local/state/acme/logs/diagnostics.log" };
 */
export interface InvocationDiagnostics {
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly droppedBytes: number;
  /** The owner's diagnostics file the kept bytes went to (absent when nothing ran). */
  readonly logFile?: string;
  /** Writes to that file that were lost (a full disk, say); absent when none were. The call's outcome stands. */
  readonly logWriteFailures?: number;
}

/** Most result issues an outcome carries. */
export const RESULT_ISSUES_MAX = 16;

/**
 * One way a command's result differs from its declaration: where (a JSON
 * pointer into the result), a stable code and what was expected.
 *
 * @example
 * const i: ResultIssue = { path: "/data/count", code: "type_mismatch", message: "expected an integer" };
 */
export interface ResultIssue {
  readonly path: string;
  readonly code: CommandResultIssueCode;
  readonly message: string;
}

/**
 * The one outcome of one invocation. `message` is safe to show a client (it
 * comes from the command's own completion or from the core, never from
 * stdout/stderr); `issues` lists input problems of a `rejected`/`invalid_input`.
 *
 * @example
 * const o: InvocationOutcome = { invocationId: "…", outcome: "succeeded", reason: "completed",
 *   commandResult: { kind: "text", text: "hi" }, diagnostics: { stdoutBytes: 0, stderrBytes: 0, droppedBytes: 0 } };
 */
export interface InvocationOutcome {
  readonly invocationId: string;
  readonly outcome: OutcomeKind;
  readonly reason: OutcomeReason;
  /** The profile revision the call was pinned to, once it was resolved. */
  readonly revisionId?: string;
  readonly commandResult?: CommandResult;
  readonly effects?: readonly string[];
  readonly message?: string;
  /** A passthrough program's exit status (`command_failed`/`exit_status`). */
  readonly exitCode?: number;
  readonly issues?: readonly ValidationIssue<InputIssueCode>[];
  /**
   * Why a result did not match its declaration (`execution_failed`/
   * `invalid_result` or `result_too_large`): at most
   * {@link RESULT_ISSUES_MAX}, each message at most 200 characters.
   */
  readonly resultIssues?: readonly ResultIssue[];
  /** Which per-invocation limit an `execution_failed`/`resource_limit` call exceeded. */
  readonly resourceLimit?: ResourceLimitName;
  /** The profile revision a built-in command published (see `InvocationCore.invokeBuiltin`). */
  readonly published?: string;
  readonly diagnostics: InvocationDiagnostics;
}

/**
 * The per-invocation resource limits a call can be ended by.
 *
 * @example
 * if (outcome.reason === "resource_limit" && outcome.resourceLimit === "memory") raiseTheLimit();
 */
export type ResourceLimitName = "memory" | "processes" | "openFiles" | "fileSize";

/**
 * The envelope both surfaces show of a core's outcome (its one home is
 * `@rukh/profile`, beside the schema every tool declares for it).
 *
 * @example
 * const env: OutcomeEnvelope = outcomeEnvelope(outcome);
 */
export type OutcomeEnvelope = Envelope<OutcomeReason>;
