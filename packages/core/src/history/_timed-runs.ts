import { relative } from "node:path";
import {
  type IndexDetail,
  type RunFilter,
  type RunSummary,
  spanOf,
  timedBlocks,
  when,
} from "../journal/index.js";
import { foldRuns, joined, outside, type Placed, placedIn } from "./_placed-records.js";

/** What a listing asks of one indexed segment for a time window. */
export interface TimedRead {
  readonly stateRoot: string;
  readonly file: string;
  readonly detail: IndexDetail;
  readonly filter: RunFilter;
  /** The most runs the listing returns. */
  readonly limit: number;
  /** Whether the listing would list a run (its filter, and not seen in a newer segment). */
  readonly wanted: (run: RunSummary) => boolean;
  /** Whether a wanted run stays (no newer segment the listing passed over has its call). */
  readonly keeps: (run: RunSummary) => Promise<boolean>;
}

/** Blocks newest first: by their latest time, then from the end of the segment. */
const newestBlocksFirst = (detail: IndexDetail, f: RunFilter) =>
  timedBlocks(detail, f).sort((a, b) => (a.to < b.to ? 1 : a.to > b.to ? -1 : b.start - a.start));

/**
 * Runs of an indexed segment that may meet the filter's times, each as a
 * whole read would give it (every record of its call read, through the
 * byte span the index gives), in the order they first appear. The blocks of
 * those times are read newest first, one, then two, then four…, and reading
 * stops once `limit` of the wanted runs stay and are later than anything a
 * block left unread can date: the runs left unread could never be listed.
 * `undefined` when the index does not know a candidate (the caller then
 * reads the segment).
 */
export async function timedRuns(o: TimedRead): Promise<RunSummary[] | undefined> {
  const { since, until } = o.filter;
  const name = relative(o.stateRoot, o.file);
  const blocks = newestBlocksFirst(o.detail, o.filter);
  let done: [number, number][] = [];
  const placed: Placed[] = [];
  const candidates = new Set<string>();
  const read = async (ranges: readonly (readonly [number, number])[]) => {
    for (const range of outside(joined(ranges), done))
      placed.push(...(await placedIn(o.file, name, range)));
    done = joined([...done, ...ranges]);
  };
  let next = 0;
  for (let batch = 1; ; batch *= 2) {
    const taken = joined(blocks.slice(next, next + batch).map((b) => [b.start, b.end] as const));
    next = Math.min(blocks.length, next + batch);
    await read(taken);
    // A call is a candidate when a block read holds one of its records of the filter's times.
    const fresh: string[] = [];
    for (const { at, rec } of placed)
      if (
        rec.type !== "process" &&
        !candidates.has(rec.invocationId) &&
        taken.some(([s, e]) => at >= s && at < e) &&
        (since === undefined || rec.at >= since) &&
        (until === undefined || rec.at <= until)
      ) {
        candidates.add(rec.invocationId);
        fresh.push(rec.invocationId);
      }
    const spans: (readonly [number, number])[] = [];
    for (const id of fresh) {
      const span = spanOf(o.detail, id);
      if (span === undefined) return undefined;
      spans.push(span);
    }
    await read(spans);
    // In file order, so each run folds as a whole read folds it.
    placed.sort((x, y) => x.at - y.at);
    const runs = foldRuns(
      placed.filter((p) => candidates.has(p.rec.invocationId)).map((p) => p.rec),
      name,
    );
    if (next >= blocks.length || (await enough(runs, blocks[next]!.to, o))) return runs;
  }
}

/** Whether `limit` of the wanted runs stay and are later than `latest`, the latest time a block left unread holds. */
async function enough(runs: readonly RunSummary[], latest: string, o: TimedRead): Promise<boolean> {
  let kept = 0;
  for (const r of runs)
    if (when(r) > latest && o.wanted(r) && (await o.keeps(r)) && ++kept >= o.limit) return true;
  return false;
}
