import { relative } from "node:path";
import type { JsonObject } from "@rukh/json";
import {
  allSegments,
  type JournalDiagnostics,
  type JournalRecord,
  parseSegment,
  readingFile,
  readSegmentLeniently,
} from "./_journal.js";
import type { OutcomeKind, OutcomeReason } from "./_outcome.js";

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
      revisionId: rec.revisionId,
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
    if (r.command === undefined && rec.command !== undefined) r.command = rec.command;
    // A call refused before it started names its caller in its final record.
    if (rec.by !== undefined && r.subject === undefined) Object.assign(r, rec.by);
  }
  if (r.startedAt !== undefined && r.endedAt !== undefined)
    r.durationMs = Date.parse(r.endedAt) - Date.parse(r.startedAt);
}

/** How much of a segment's end a listing reads first; it reads four times more while it needs more. */
const TAIL_WINDOW = 262_144;

/** The most runs one listing returns. */
export const RUNS_MAX_LIMIT = 10_000;

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The runs of one segment, reading only its last `tailBytes` (whole lines)
 * when that is smaller than the file: a listing needs the newest runs, and
 * a call's records follow one another, so the tail holds them.
 */
async function segmentRuns(
  stateRoot: string,
  file: string,
  tailBytes = Number.POSITIVE_INFINITY,
): Promise<{ runs: RunSummary[]; whole: boolean }> {
  const name = relative(stateRoot, file);
  let seg: Awaited<ReturnType<typeof readSegmentLeniently>>;
  let whole = true;
  if (Number.isFinite(tailBytes)) {
    const tail = await readTail(file, tailBytes);
    if (tail === undefined) return { runs: [], whole: true };
    whole = tail.whole;
    seg = parseSegment(tail.bytes, name);
  } else seg = await readSegmentLeniently(file, name);
  if (seg === undefined) return { runs: [], whole: true };
  const runs = new Map<string, Mutable<RunSummary>>();
  const of = (id: string) => {
    let r = runs.get(id);
    if (r === undefined) {
      r = { invocationId: id, segment: name };
      runs.set(id, r);
    }
    return r;
  };
  for (const rec of seg.records) absorb(of(rec.invocationId), rec);
  // Cut mid-history, the oldest runs of the window may have lost their start: drop those.
  const all = [...runs.values()];
  return {
    runs: whole
      ? all
      : all.filter(
          (r) => r.startedAt !== undefined || (r.endedAt !== undefined && r.outcome === "rejected"),
        ),
    whole,
  };
}

/** The last whole lines within the last `bytes` of a file (all of it when smaller). */
async function readTail(
  file: string,
  bytes: number,
): Promise<{ bytes: Buffer; whole: boolean } | undefined> {
  return readingFile(file, async (h) => {
    const { size } = await h.stat();
    if (size <= bytes) return { bytes: await h.readFile(), whole: true };
    const buf = Buffer.alloc(bytes);
    await h.read(buf, 0, bytes, size - bytes);
    const firstLine = buf.indexOf(0x0a);
    return { bytes: buf.subarray(firstLine + 1), whole: false };
  });
}

const when = (r: RunSummary) => r.startedAt ?? r.endedAt ?? "";

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

/** Segments newest first: live ones, then the archive from its end, then the earlier versions' file. */
const newestFirst = async (stateRoot: string) => (await allSegments(stateRoot)).reverse();

/**
 * The newest runs that match `filter` (at most `limit`, default 50), newest
 * first. Segments are read newest first and reading stops one segment after
 * enough runs are found, so a listing costs what it shows, not the history.
 * Damaged lines are passed over (start-up sets damaged segments aside).
 *
 * @example
 * for (const r of await listRuns(state.root, { outcome: "execution_failed" })) console.log(r.invocationId, r.reason);
 */
export async function listRuns(stateRoot: string, filter: RunFilter = {}): Promise<RunSummary[]> {
  const limit = Math.min(Math.max(1, filter.limit ?? 50), RUNS_MAX_LIMIT);
  const found: RunSummary[] = [];
  // A call still running when its host rolled to a new segment part is in both: the newest wins.
  const seen = new Set<string>();
  let extra = 1;
  for (const file of await newestFirst(stateRoot)) {
    // Read a segment from its end, a window at a time, until it gives enough.
    for (let window = TAIL_WINDOW; ; window *= 4) {
      const before = found.length;
      const { runs, whole } = await segmentRuns(stateRoot, file, window);
      const fresh: RunSummary[] = [];
      for (const r of runs) if (!seen.has(r.invocationId)) fresh.push(r);
      const hits = fresh.filter((r) => matches(r, filter));
      if (whole || hits.length + before >= limit) {
        for (const r of fresh) seen.add(r.invocationId);
        found.push(...hits);
        break;
      }
    }
    // Hosts close in their own order: one more segment settles the newest few.
    if (found.length >= limit && extra-- === 0) break;
  }
  return found.sort((a, b) => (when(a) < when(b) ? 1 : when(a) > when(b) ? -1 : 0)).slice(0, limit);
}

/**
 * One run by its invocation id — every id Rukh hands a caller is here — or
 * `undefined`. Reads newest segments first and stops at the first that has it.
 *
 * @example
 * const run = await findRun(state.root, outcome.invocationId);
 */
export async function findRun(
  stateRoot: string,
  invocationId: string,
): Promise<RunSummary | undefined> {
  for (const file of await newestFirst(stateRoot)) {
    const r = (await segmentRuns(stateRoot, file)).runs.find(
      (x) => x.invocationId === invocationId,
    );
    if (r !== undefined) return r;
  }
  return undefined;
}
