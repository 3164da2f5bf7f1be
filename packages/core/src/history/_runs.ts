import { dirname, join, relative } from "node:path";
import {
  idHashes,
  indexRead,
  journalPaths,
  loadIndex,
  matches,
  mayHold,
  mayMatch,
  parseSegment,
  type RunFilter,
  type RunSummary,
  readingFile,
  readStamped,
  readWhole,
  type SegmentIndex,
  type SegmentStamp,
  segmentNames,
  spanOf,
  timedRanges,
} from "../journal/index.js";
import { foldRuns, placedIn } from "./_placed-records.js";
import { ListingHits } from "./_run-hits.js";
import { timedRuns } from "./_timed-runs.js";

/** How much of a segment's end a listing reads first; it reads four times more while it needs more. */
const TAIL_WINDOW = 262_144;

/** The most runs one listing returns. */
export const RUNS_MAX_LIMIT = 10_000;

/**
 * The runs of one segment, reading only its last `tailBytes` (whole lines)
 * when that is smaller than the file: a listing needs the newest runs, and
 * a call's records follow one another, so the tail holds them. With
 * `index`, a segment read whole gets its index written from what was read.
 */
async function segmentRuns(
  stateRoot: string,
  file: string,
  tailBytes = Number.POSITIVE_INFINITY,
  index = false,
): Promise<{ runs: RunSummary[]; whole: boolean }> {
  const name = relative(stateRoot, file);
  const read = Number.isFinite(tailBytes)
    ? await readTail(file, tailBytes)
    : await readStamped(file).then((w) => w && { ...w, whole: true });
  if (read === undefined) return { runs: [], whole: true };
  const spans: number[] | undefined = index && read.stamp !== undefined ? [] : undefined;
  const seg = parseSegment(read.bytes, name, spans);
  if (spans !== undefined && read.stamp !== undefined)
    await indexRead(file, read.stamp, { ...seg, spans, torn: seg.tornTailBytes > 0 });
  const all = foldRuns(seg.records, name);
  // Cut mid-history, the oldest runs of the window may have lost their start: drop those.
  return {
    runs: read.whole
      ? all
      : all.filter(
          (r) => r.startedAt !== undefined || (r.endedAt !== undefined && r.outcome === "rejected"),
        ),
    whole: read.whole,
  };
}

/** The last whole lines within the last `bytes` of a file (all of it, stamped, when smaller). */
async function readTail(
  file: string,
  bytes: number,
): Promise<{ bytes: Buffer; whole: boolean; stamp?: SegmentStamp | undefined } | undefined> {
  return readingFile(file, async (h) => {
    const { size } = await h.stat();
    if (size <= bytes) return { ...(await readWhole(h)), whole: true };
    const buf = Buffer.alloc(bytes);
    await h.read(buf, 0, bytes, size - bytes);
    const firstLine = buf.indexOf(0x0a);
    return { bytes: buf.subarray(firstLine + 1), whole: false };
  });
}

/** The run of one invocation from the byte span its segment's index gives for it. */
async function runInSpan(
  stateRoot: string,
  file: string,
  id: string,
  span: readonly [number, number],
): Promise<RunSummary | undefined> {
  const name = relative(stateRoot, file);
  const placed = await placedIn(file, name, span);
  return foldRuns(
    placed.filter((p) => p.rec.invocationId === id).map((p) => p.rec),
    name,
  )[0];
}

const isArchived = (stateRoot: string, file: string) =>
  dirname(file) === journalPaths(stateRoot).archive;

/** The index of an archive segment that holds for it now; none for live segments. */
const indexOf = (stateRoot: string, file: string): Promise<SegmentIndex | undefined> =>
  isArchived(stateRoot, file) ? loadIndex(file) : Promise.resolve(undefined);

/** How many segments' indexes are read ahead of the one a reader is at, so that their reads overlap. */
const INDEXES_AHEAD = 8;

/**
 * Segments newest first — live ones, then the archive from its end, then
 * the earlier versions' file — each with its index when it has one that
 * holds, loaded a few segments ahead. The archive is listed only once the
 * live segments are read: a host archiving one meanwhile appends it to the
 * archive before removing it, so it is found in one place or both (the
 * newest wins), never in neither — even in an archive segment that did not
 * exist when `live/` was listed.
 */
async function* newestFirst(
  stateRoot: string,
): AsyncGenerator<readonly [string, SegmentIndex | undefined]> {
  const p = journalPaths(stateRoot);
  for (const name of (await segmentNames(p.live)).reverse()) yield [join(p.live, name), undefined];
  const files = [
    ...(await segmentNames(p.archive)).reverse().map((n) => join(p.archive, n)),
    p.legacy,
  ];
  const ahead: Promise<SegmentIndex | undefined>[] = [];
  for (let i = 0; i < files.length; i++) {
    while (ahead.length < INDEXES_AHEAD && i + ahead.length < files.length) {
      const loading = indexOf(stateRoot, files[i + ahead.length]!);
      // One the reader never gets to must not fail the process.
      loading.catch(() => {});
      ahead.push(loading);
    }
    yield [files[i]!, await ahead.shift()];
  }
}

/**
 * The newest runs that match `filter` (at most `limit`, default 50), newest
 * first. Segments are read newest first and reading stops one segment after
 * enough runs are found, so a listing costs what it shows, not the history.
 * An archive segment whose index rules the filter out is not read at all.
 * Damaged lines are passed over (start-up sets damaged segments aside).
 *
 * @example
 * for (const r of await listRuns(state.root, { outcome: "execution_failed" })) console.log(r.invocationId, r.reason);
 */
export async function listRuns(stateRoot: string, filter: RunFilter = {}): Promise<RunSummary[]> {
  const limit = Math.min(Math.max(1, filter.limit ?? 50), RUNS_MAX_LIMIT);
  // A call still running when its host rolled to a new segment part is in both: the newest wins.
  const seen = new Set<string>();
  // Segments passed over by their index: their ids are seen all the same (asked lazily, by `hits`).
  const passed: SegmentIndex[] = [];
  const hits = new ListingHits(passed);
  const wanted = (r: RunSummary) => matches(r, filter) && !seen.has(r.invocationId);
  const timed = filter.since !== undefined || filter.until !== undefined;
  let extra = 1;
  for await (const [file, index] of newestFirst(stateRoot)) {
    if (index !== undefined && !mayMatch(index.header, filter)) passed.push(index);
    // Read a segment from its end, a window at a time, until it gives enough.
    else
      for (let window = TAIL_WINDOW; ; window *= 4) {
        const before = hits.size;
        if (index !== undefined && timed) {
          const detail = await index.detail();
          // A window without a record of the filter's times has no hit: the next one is read.
          if (
            window < detail.size &&
            timedRanges(detail, filter, detail.size - window).length === 0
          )
            continue;
          const runs =
            window < detail.size
              ? undefined
              : await timedRuns({
                  stateRoot,
                  file,
                  detail,
                  filter,
                  limit,
                  wanted,
                  keeps: (r) => hits.keepsNew(r),
                });
          if (runs !== undefined) {
            hits.add(runs.filter(wanted));
            passed.push(index);
            break;
          }
        }
        const writeIndex = index === undefined && isArchived(stateRoot, file);
        const { runs, whole } = await segmentRuns(stateRoot, file, window, writeIndex);
        const fresh = runs.filter((r) => !seen.has(r.invocationId));
        hits.add(fresh.filter(wanted));
        if (whole || (await hits.atLeast(limit))) {
          for (const r of fresh) seen.add(r.invocationId);
          break;
        }
        hits.truncate(before);
      }
    // Hosts close in their own order: one more segment settles the newest few.
    if ((await hits.atLeast(limit)) && extra-- === 0) break;
  }
  return hits.newest(limit);
}

/**
 * One run by its invocation id — every id Rukh hands a caller is here — or
 * `undefined`. Reads newest segments first and stops at the first that has it;
 * of an indexed archive segment, only the bytes of that call.
 *
 * @example
 * const run = await findRun(state.root, outcome.invocationId);
 */
export async function findRun(
  stateRoot: string,
  invocationId: string,
): Promise<RunSummary | undefined> {
  const hashes = idHashes(invocationId);
  for await (const [file, index] of newestFirst(stateRoot)) {
    if (index !== undefined) {
      if (!mayHold(index.header.idFilter, hashes)) continue;
      const span = spanOf(await index.detail(), invocationId);
      if (span === undefined) continue;
      const run = await runInSpan(stateRoot, file, invocationId, span);
      if (run !== undefined) return run;
    }
    const writeIndex = index === undefined && isArchived(stateRoot, file);
    const r = (await segmentRuns(stateRoot, file, Number.POSITIVE_INFINITY, writeIndex)).runs.find(
      (x) => x.invocationId === invocationId,
    );
    if (r !== undefined) return r;
  }
  return undefined;
}
