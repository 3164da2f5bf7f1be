// The verdict of a managed call: from what the process reported, how it
// exited and what the channel saw, the one outcome the caller gets.

import {
  type CommandResult,
  type CommandResultIssueCode,
  validateCommandResult,
} from "@rukh/command-result";
import type { CancelCause, CompletionMessage, IpcError, IpcErrorCode } from "@rukh/ipc";
import {
  type InvocationDiagnostics,
  type InvocationOutcome,
  type OutcomeReason,
  RESULT_ISSUES_MAX,
  type ResultIssue,
} from "../contract/index.js";
import type { InvocationDiagnosticsBudget } from "../diagnostics/index.js";
import type { ResourceLimits } from "../process/index.js";
import type { Planned } from "./_admission.js";

/** An outcome before the core gives it its invocation and revision ids. */
export type RunResult = Omit<InvocationOutcome, "invocationId" | "revisionId">;

/** A result as checked against its declaration. */
export type CheckedResult =
  | { ok: true; result?: CommandResult }
  | { ok: false; reason: OutcomeReason; issues?: readonly ResultIssue[] };

/** The longest result-issue message and pointer kept: the issue list is bounded, whatever the result. */
const ISSUE_MESSAGE_MAX = 200;
const ISSUE_PATH_MAX = 256;

/** `s` cut to `max` characters, the cut marked with an ellipsis. */
const cut = (s: string, max: number) =>
  [...s].length > max ? `${[...s].slice(0, max - 1).join("")}…` : s;

/** How a process exited, as Node reports it. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * Why the core cancels a call: the causes the channel carries to the command
 * (`rukh.ipc/1`), and the loss of the client's transport, which the command
 * is told as an owner's cancel.
 */
export type Cause = CancelCause | "transport";

/** The cause the command's channel carries. */
export const wireCause = (c: Cause): CancelCause => (c === "transport" ? "owner" : c);

export const CANCEL_REASON: Record<Cause, OutcomeReason> = {
  client: "client_cancel",
  owner: "owner_cancel",
  transport: "transport_lost",
  deadline: "deadline",
};

const CANCEL_MESSAGE: Record<Cause, string> = {
  client: "the call was cancelled",
  owner: "the call was cancelled",
  transport: "the client's connection was lost",
  deadline: "the call's deadline passed",
};

// bubblewrap reports a command killed by signal N as exit status 128 + N.
export const SIGXFSZ_STATUS = 128 + 25;

const SIZE_ISSUES: ReadonlySet<CommandResultIssueCode> = new Set([
  "too_large",
  "too_deep",
  "too_many_nodes",
  "too_slow",
]);

/** Checks a completion's result against the command's declaration and the result limits. */
export function checkResult(admitted: Planned, c: CompletionMessage): CheckedResult {
  const declaration = admitted.command.execute.result;
  if (c.commandResult === undefined)
    return declaration !== undefined && c.outcome === "succeeded"
      ? { ok: false, reason: "missing_result" }
      : { ok: true };
  const v = validateCommandResult(declaration ?? { kind: "text" }, c.commandResult, {
    limits: {
      resultMaxBytes: admitted.resultMaxBytes,
      validationMaxMs: admitted.resultValidationMaxMs,
    },
  });
  if (v.ok) return { ok: true, result: v.value };
  return {
    ok: false,
    reason: v.issues.some((i) => SIZE_ISSUES.has(i.code)) ? "result_too_large" : "invalid_result",
    // A pointer names the result's own keys, which may be long: both are cut.
    issues: v.issues.slice(0, RESULT_ISSUES_MAX).map((i) => ({
      path: cut(i.path, ISSUE_PATH_MAX),
      code: i.code,
      message: cut(i.message, ISSUE_MESSAGE_MAX),
    })),
  };
}

const FAILURE_MESSAGES: Partial<Record<OutcomeReason, string>> = {
  invalid_result: "the command's result does not match its declaration",
  result_too_large: "the command's result exceeds the result limits",
  missing_result: "the command reported success without its declared result",
  exit_nonzero_after_success: "the command reported success but its process did not exit cleanly",
  no_completion: "the command process exited without reporting a completion",
  crashed: "the command process ended without reporting a completion",
  protocol_error: "the command process broke the host protocol",
  spawn_failed: "the command process could not be started",
  cleanup_failed: "the command process could not be cleaned up",
};

/** What a client is told when the core ended a process that ran on without its channel. */
const CHANNEL_LOST_MESSAGES: Partial<Record<IpcErrorCode, string>> = {
  closed_before_completion: "the command process closed its channel without a completion",
  handshake_timeout: "the command process did not answer the host's handshake in time",
};

function failed(reason: OutcomeReason, diagnostics: InvocationDiagnostics): RunResult {
  return {
    outcome: "execution_failed",
    reason,
    message: FAILURE_MESSAGES[reason] ?? "the command failed to execute",
    diagnostics,
  };
}

const LIMIT_WORDS = { memory: "memory", fileSize: "file size" } as const;

export function limitExceeded(
  limit: "memory" | "fileSize",
  limits: ResourceLimits,
  diagnostics: InvocationDiagnostics,
): RunResult {
  const bytes = limit === "memory" ? limits.memoryBytes : limits.fileSizeBytes;
  return {
    outcome: "execution_failed",
    reason: "resource_limit",
    resourceLimit: limit,
    message: `the command exceeded its ${LIMIT_WORDS[limit]} limit (${bytes} bytes)`,
    diagnostics,
  };
}

/** Which limit the kernel's signal or the runtime's own report says the command ran into. */
function exceededLimit(
  exit: ProcessExit | undefined,
  diag: InvocationDiagnosticsBudget,
): "memory" | "fileSize" | undefined {
  if (exit?.signal === "SIGXFSZ" || exit?.code === SIGXFSZ_STATUS) return "fileSize";
  if (diag.allocationFailed) return "memory";
  return undefined;
}

/** Everything a managed call's verdict is decided from. */
export interface ManagedEnd {
  readonly cause: Cause | undefined;
  readonly completion: CompletionMessage | undefined;
  readonly checked: CheckedResult;
  readonly exit: ProcessExit | undefined;
  readonly spawnError: Error | undefined;
  readonly channelError: IpcError | undefined;
  readonly cleanedUp: boolean;
  readonly greeted: boolean;
  /**
   * The channel's failure, when the core killed a process that ran on after
   * its channel closed, failed or never got its hello.
   */
  readonly channelLost: IpcError | undefined;
  /** Why the package failed its check at hand-over: then nothing of it ran. */
  readonly storeCorrupt: string | undefined;
}

/** The one outcome of a managed call. */
export function decide(
  diag: InvocationDiagnosticsBudget,
  limits: ResourceLimits,
  end: ManagedEnd,
): RunResult {
  const { cause, completion, checked, exit, spawnError, channelError, cleanedUp, greeted } = end;
  if (end.storeCorrupt !== undefined && cause === undefined)
    return {
      outcome: "rejected",
      reason: "store_corrupt",
      message: end.storeCorrupt,
      diagnostics: diag.summary(),
    };
  diag.note(
    {
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      channel: channelError?.code ?? null,
      stdoutBytes: diag.stdoutBytes,
      stderrBytes: diag.stderrBytes,
      droppedBytes: diag.droppedBytes,
    },
    "finished",
  );
  const diagnostics = diag.summary();
  if (cause !== undefined)
    return {
      outcome: "cancelled",
      reason: CANCEL_REASON[cause],
      message: CANCEL_MESSAGE[cause],
      diagnostics,
    };
  if (completion === undefined) {
    if (
      spawnError !== undefined ||
      channelError?.code === "spawn_failed" ||
      channelError?.code === "hold_failed"
    )
      return failed("spawn_failed", diagnostics);
    // Started through the sandbox or prlimit, a program that cannot be
    // executed shows as their exec-failure status, before any hello.
    if (!greeted && (exit?.code === 126 || exit?.code === 127))
      return failed("spawn_failed", diagnostics);
    const limit = exceededLimit(exit, diag);
    if (limit !== undefined) return limitExceeded(limit, limits, diagnostics);
    if (end.channelLost !== undefined)
      return {
        ...failed("protocol_error", diagnostics),
        message: CHANNEL_LOST_MESSAGES[end.channelLost.code] ?? FAILURE_MESSAGES.protocol_error!,
      };
    if (channelError?.protocolViolation) return failed("protocol_error", diagnostics);
    if (exit?.code === 0) return failed("no_completion", diagnostics);
    return failed("crashed", diagnostics);
  }
  if (channelError !== undefined) return failed("protocol_error", diagnostics);
  if (!checked.ok)
    return {
      ...failed(checked.reason, diagnostics),
      ...(checked.issues !== undefined && { resultIssues: checked.issues }),
    };
  if (!cleanedUp) return failed("cleanup_failed", diagnostics);
  const extras = {
    ...(checked.result !== undefined && { commandResult: checked.result }),
    ...(completion.effects !== undefined && { effects: completion.effects }),
    ...(completion.message !== undefined && { message: completion.message }),
  };
  if (completion.outcome === "command_failed")
    return { outcome: "command_failed", reason: "command_reported", ...extras, diagnostics };
  if (exit?.code !== 0) return failed("exit_nonzero_after_success", diagnostics);
  return { outcome: "succeeded", reason: "completed", ...extras, diagnostics };
}
