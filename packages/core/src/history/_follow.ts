// Following the journal as it is written: the live segments' new records,
// read from where the last look ended, as run events.

import { stat } from "node:fs/promises";
import { join, relative } from "node:path";
import {
  absorb,
  journalPaths,
  type Mutable,
  matches,
  parseSegment,
  type RunFilter,
  type RunSummary,
  readingFile,
  segmentNames,
} from "../journal/index.js";

/**
 * A run starting or ending, as {@link followRuns} sees it.
 *
 * @example
 * const e: RunEvent = { event: "ended", run: { invocationId: "…", outcome: "succeeded", reason: "completed", segment: "…" } };
 */
export interface RunEvent {
  readonly event: "started" | "ended";
  readonly run: RunSummary;
}

/** Options of {@link followRuns}. */
export interface FollowOptions {
  /** Only events whose run matches (`limit` is ignored; outcome filters keep only `ended`). */
  readonly filter?: RunFilter;
  /** Ends the iteration. */
  readonly signal: AbortSignal;
  /** How often the live segments are looked at; default 250 ms. */
  readonly intervalMs?: number;
  /**
   * Called once the follower has marked where the journal ends now: what is
   * written after this is yielded, so history listed from here on meets the
   * events without a gap.
   */
  readonly onReady?: () => void;
}

/** How many runs a follower remembers, so a part that carries a running call's start does not repeat it. */
const REMEMBERED = 16_384;

/** The most a follower reads of one segment per look (a live part rolls over at 4 MiB). */
const READ_MAX = 4_194_304;

/**
 * Yields every run that starts or ends from now on, in journal order per
 * host, until `signal` aborts. Each look reads only what the live segments
 * gained since the last one (a host's segment that is archived was read
 * while live).
 *
 * @example
 * for await (const e of followRuns(state.root, { signal })) console.log(e.event, e.run.invocationId);
 */
export async function* followRuns(
  stateRoot: string,
  options: FollowOptions,
): AsyncGenerator<RunEvent> {
  const paths = journalPaths(stateRoot);
  // A host's last records may reach the archive before a look sees them live:
  // both are followed, and a run seen twice is told once.
  const segments = async () => [
    ...(await segmentNames(paths.archive)).slice(-2).map((n) => join(paths.archive, n)),
    ...(await segmentNames(paths.live)).map((n) => join(paths.live, n)),
  ];
  const offsets = new Map<string, number>();
  const known = new Map<string, Mutable<RunSummary>>();
  const ended = new Set<string>();
  const filter = options.filter ?? {};
  const wantsStarts = filter.outcome === undefined && filter.reason === undefined;
  // What is already there is history: follow from its end.
  for (const file of await segments())
    offsets.set(file, (await stat(file).catch(() => ({ size: 0 }))).size);
  options.onReady?.();
  while (!options.signal.aborted) {
    const files = await segments();
    for (const gone of [...offsets.keys()]) if (!files.includes(gone)) offsets.delete(gone);
    for (const file of files) {
      const from = offsets.get(file) ?? 0;
      const read = await readFrom(file, from);
      if (read === undefined) continue;
      // A failed append cut back: go on from the file's end.
      if (read.size < from) {
        offsets.set(file, read.size);
        continue;
      }
      // Only whole lines: a record being written is read on the next look.
      const end = read.bytes.lastIndexOf(0x0a) + 1;
      offsets.set(file, from + end);
      const name = relative(stateRoot, file);
      for (const rec of parseSegment(read.bytes.subarray(0, end), name).records) {
        if (rec.type === "process") continue;
        const id = rec.invocationId;
        if (rec.type === "final" ? ended.has(id) : known.has(id)) continue;
        const run = known.get(id) ?? { invocationId: id, segment: name };
        known.set(id, run);
        absorb(run, rec);
        if (rec.type === "final") ended.add(id);
        if ((rec.type === "final" || wantsStarts) && matches(run, filter))
          yield { event: rec.type === "final" ? "ended" : "started", run: { ...run } };
      }
    }
    forgetOldest(known, ended);
    await sleep(options.intervalMs ?? 250, options.signal);
  }
}

function forgetOldest(known: Map<string, unknown>, ended: Set<string>): void {
  for (const id of known.keys()) {
    if (known.size <= REMEMBERED) break;
    known.delete(id);
    ended.delete(id);
  }
}

function readFrom(
  file: string,
  from: number,
): Promise<{ bytes: Buffer; size: number } | undefined> {
  return readingFile(file, async (h) => {
    const { size } = await h.stat();
    if (size === from) return undefined;
    if (size < from) return { bytes: Buffer.alloc(0), size };
    const buf = Buffer.alloc(Math.min(size - from, READ_MAX));
    const { bytesRead } = await h.read(buf, 0, buf.length, from);
    return { bytes: buf.subarray(0, bytesRead), size };
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
