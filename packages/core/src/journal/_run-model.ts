import type { JsonObject } from "@rukh/json";
import type { OutcomeKind, OutcomeReason } from "../contract/index.js";
import type { JournalDiagnostics, JournalRecord } from "./_journal.js";

/**
 * One invocation as the journal knows it: who ran what, when, for how long,
 * and how it ended. A run with no `outcome` is still going (or its host was
 * lost and no start-up has finished it yet). Inputs are there as a digest,
 * and as values only where the owner records them.
 *
 * @example
 * const r: RunSummary = { invocationId: "…", command: "acme.files/count", surface: "mcp",
 *   subject: "alice", actor: "claude-code", preset: "agent", startedAt: "…", outcome: "succeeded", reason: "completed" };
 */
export interface RunSummary {
  readonly invocationId: string;
  readonly command?: string;
  readonly surface?: "cli" | "mcp";
  readonly subject?: string;
  readonly actor?: string;
  readonly taskAuthorityRef?: string;
  readonly preset?: string;
  readonly revisionId?: string;
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly durationMs?: number;
  readonly outcome?: OutcomeKind;
  readonly reason?: OutcomeReason;
  /** `sha256:<hex>` of the canonical JSON of the validated inputs. */
  readonly inputsDigest?: string;
  /** The inputs, when the owner's `journal.recordInputs` was on and they fit. */
  readonly inputs?: JsonObject;
  readonly inputsOmitted?: "too_large";
  /** The command came from a development link (`ext link`). */
  readonly dev?: true;
  /** Bytes the command wrote to stdout and stderr, and what of it the cap dropped. */
  readonly diagnostics?: JournalDiagnostics;
  /** Where a result missed its declaration: pointers and codes, as the journal keeps them. */
  readonly resultIssues?: readonly { readonly path: string; readonly code: string }[];
  /** The profile revision a built-in command published: what it changed. */
  readonly published?: string;
  /** Its final was written after its outcome was returned (a full disk): see the journal's `deliveredUnjournaled`. */
  readonly deliveredUnjournaled?: true;
  /** The journal segment it was read from, relative to the state directory. */
  readonly segment: string;
}

/**
 * Which runs {@link listRuns} returns: all given members must match. `since`
 * and `until` are ISO 8601 times compared with the run's start (or end, for
 * a call rejected before it started).
 *
 * @example
 * const filter: RunFilter = { surface: "mcp", outcome: "execution_failed", limit: 20 };
 */
export interface RunFilter {
  readonly limit?: number;
  readonly surface?: "cli" | "mcp";
  readonly outcome?: OutcomeKind;
  readonly reason?: OutcomeReason;
  readonly command?: string;
  readonly preset?: string;
  readonly since?: string;
  readonly until?: string;
}

/** Folds one journal record into what is known of its run. */
export function absorb(r: Mutable<RunSummary>, rec: JournalRecord): void {
  if (rec.type === "start") {
    Object.assign(r, {
      command: rec.command,
      surface: rec.surface,
      subject: rec.subject,
      actor: rec.actor,
      taskAuthorityRef: rec.taskAuthorityRef,
      preset: rec.preset,
      // A built-in run before anything was published pinned no revision.
      ...(rec.revisionId !== "" && { revisionId: rec.revisionId }),
      startedAt: rec.at,
      ...(rec.inputsDigest !== undefined && { inputsDigest: rec.inputsDigest }),
      ...(rec.inputs !== undefined && { inputs: rec.inputs }),
      ...(rec.inputsOmitted !== undefined && { inputsOmitted: rec.inputsOmitted }),
      ...(rec.dev === true && { dev: true as const }),
    });
  } else if (rec.type === "final") {
    r.outcome = rec.outcome;
    r.reason = rec.reason;
    r.endedAt = rec.at;
    if (rec.diagnostics !== undefined) r.diagnostics = rec.diagnostics;
    if (rec.resultIssues !== undefined) r.resultIssues = rec.resultIssues;
    if (rec.deliveredUnjournaled === true) r.deliveredUnjournaled = true;
    if (rec.published !== undefined) r.published = rec.published;
    if (r.command === undefined && rec.command !== undefined) r.command = rec.command;
    // A call refused before it started names its caller in its final record.
    if (rec.by !== undefined && r.subject === undefined) Object.assign(r, rec.by);
  }
  if (r.startedAt !== undefined && r.endedAt !== undefined)
    r.durationMs = Date.parse(r.endedAt) - Date.parse(r.startedAt);
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** When a run happened: its start, or its end for a call refused before it started. */
export const when = (r: RunSummary) => r.startedAt ?? r.endedAt ?? "";

/** Whether a run passes every member of a filter (`limit` aside). */
export function matches(r: RunSummary, f: RunFilter): boolean {
  return (
    (f.surface === undefined || r.surface === f.surface) &&
    (f.outcome === undefined || r.outcome === f.outcome) &&
    (f.reason === undefined || r.reason === f.reason) &&
    (f.command === undefined || r.command === f.command) &&
    (f.preset === undefined || r.preset === f.preset) &&
    (f.since === undefined || when(r) >= f.since) &&
    (f.until === undefined || when(r) <= f.until)
  );
}
