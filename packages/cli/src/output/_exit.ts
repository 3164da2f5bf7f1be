import type { InvocationOutcome, OutcomeKind, OutcomeReason } from "@rukh/core";

/**
 * The exit codes of a Rukh CLI (docs/decisions/R08-cli-exit-codes.md). A
 * passthrough program's own non-zero status is passed through unchanged.
 *
 * @example
 * if (code === EXIT_CODES.usage) console.error("fix the command line");
 */
export const EXIT_CODES = {
  /** The command succeeded. */
  success: 0,
  /** The command ran and reported failure (`command_failed`). */
  commandFailed: 1,
  /** Unknown command or flag, bad value, missing input (`rejected`/`invalid_input` too). */
  usage: 2,
  /** The command could not be run to a valid completion (`execution_failed`). */
  executionFailed: 3,
  /** Admission or policy refused the call (every other `rejected` reason). */
  rejected: 4,
  /** The state directory is unusable or the CLI itself failed. */
  internal: 5,
  /** The preset's deadline ended the call (`cancelled`/`deadline`), like timeout(1). */
  deadline: 124,
  /** Cancelled by SIGINT (Ctrl-C). */
  interrupted: 130,
  /** Cancelled by SIGTERM. */
  terminated: 143,
} as const;

/** Maps an outcome to the process exit code; `signal` is what cancelled it, if a signal did. */
export function exitCodeOf(outcome: InvocationOutcome, signal?: "SIGINT" | "SIGTERM"): number {
  switch (outcome.outcome) {
    case "succeeded":
      return EXIT_CODES.success;
    case "command_failed":
      return outcome.reason === "exit_status" && outcome.exitCode !== undefined
        ? outcome.exitCode
        : EXIT_CODES.commandFailed;
    case "execution_failed":
      return outcome.reason === "state_unavailable" ||
        outcome.reason === "journal_failed" ||
        outcome.reason === "store_corrupt"
        ? EXIT_CODES.internal
        : EXIT_CODES.executionFailed;
    case "rejected":
      return outcome.reason === "invalid_input" ? EXIT_CODES.usage : EXIT_CODES.rejected;
    case "cancelled":
      if (outcome.reason === "deadline") return EXIT_CODES.deadline;
      return signal === "SIGTERM" ? EXIT_CODES.terminated : EXIT_CODES.interrupted;
  }
}

/**
 * How a built-in command's run ended, read back from its exit code by the
 * table above, for its journal record: 0 succeeded; 2 a usage error
 * (`rejected`/`invalid_input`); 5 the state directory (`execution_failed`/
 * `state_unavailable`); 1 and 4 — a failure it reported, a change the
 * profile's rules refused — `command_failed`/`command_reported`; any other
 * code `command_failed`/`exit_status`. A run a signal stopped is
 * `cancelled`/`owner_cancel`.
 *
 * @example
 * builtinEnd(EXIT_CODES.usage, false); // { outcome: "rejected", reason: "invalid_input" }
 */
export function builtinEnd(
  code: number,
  cancelled: boolean,
): { readonly outcome: OutcomeKind; readonly reason: OutcomeReason } {
  if (code === EXIT_CODES.success) return { outcome: "succeeded", reason: "completed" };
  if (cancelled) return { outcome: "cancelled", reason: "owner_cancel" };
  switch (code) {
    case EXIT_CODES.usage:
      return { outcome: "rejected", reason: "invalid_input" };
    case EXIT_CODES.internal:
      return { outcome: "execution_failed", reason: "state_unavailable" };
    case EXIT_CODES.commandFailed:
    case EXIT_CODES.rejected:
      return { outcome: "command_failed", reason: "command_reported" };
    default:
      return { outcome: "command_failed", reason: "exit_status" };
  }
}
