// What an archive segment's index says of the segment's records: built from
// records as a segment is read or appended to, split into the header a
// reader passes a segment over by and the detail it reads when it must.
import type { IdFilter, IdList } from "./_index-ids.js";
import { listOf } from "./_index-ids.js";
import type { JournalRecord } from "./_journal.js";
import { absorb, type Mutable, type RunSummary, when } from "./_run-model.js";

/** An index keeps the time span of the records of each block of about this many bytes (64 KiB). */
const BLOCK_BYTES = 65_536;

/** The segment an index describes, as it was when the index was written. */
export interface SegmentStamp {
  readonly size: number;
  readonly mtimeNs: string;
  /** `sha256:` of the segment's last 64 KiB (all of it when smaller). */
  readonly tailSha256: string;
}

/** What the index says of a segment's runs as a whole: enough to pass it over, or to date it. */
export interface IndexSummary {
  /** The earliest and latest time of a run (its start, or its end for a refused call); "" for none. */
  readonly from: string;
  readonly to: string;
  /**
   * The newest `at` of a start or final record, in milliseconds (`Date.parse`;
   * records whose time does not parse are left out), null when none: the
   * time retention weighs the segment by.
   */
  readonly newestAt: number | null;
  readonly surfaces: readonly string[];
  readonly outcomes: readonly string[];
  readonly reasons: readonly string[];
  readonly commands: readonly string[];
  readonly presets: readonly string[];
  /** The segment ends with a line without its newline. */
  readonly torn: boolean;
}

/** The first part of an index file: its summary, the segment it holds for, and a filter of its ids. */
export interface IndexHeader extends IndexSummary {
  readonly segment: SegmentStamp;
  /** How many invocation ids the detail lists. */
  readonly count: number;
  readonly idFilter: IdFilter;
}

/** The second part: every invocation id with the byte span of its records, and the times of each block. */
export interface IndexDetail {
  /** The segment's bytes the detail describes. */
  readonly size: number;
  readonly ids: IdList;
  /** Per id, the offset of its first record's line and the end of its last. */
  readonly spans: ArrayLike<number>;
  /** Where each block of about 64 KiB begins (at a line), ascending. */
  readonly blocks: readonly number[];
  /** Per block, the earliest and latest `at` of its start and final records ("" for none). */
  readonly blockFrom: readonly string[];
  readonly blockTo: readonly string[];
}

/** All an index says of a segment's records, before it is split and stamped. */
export type IndexBody = IndexSummary & Omit<IndexDetail, "size">;

/** The later of two record times, null for none. */
const later = (a: number | null, b: number | null) =>
  a === null ? b : b === null ? a : Math.max(a, b);

/** Per block of about 64 KiB of the records at `spans` (shifted by `base`), where it begins and its times. */
function blocksOf(records: readonly JournalRecord[], spans: readonly number[], base: number) {
  const blocks: number[] = [];
  const blockFrom: string[] = [];
  const blockTo: string[] = [];
  records.forEach((rec, i) => {
    const at = spans[2 * i]! + base;
    if (blocks.length === 0 || at >= blocks.at(-1)! + BLOCK_BYTES) {
      blocks.push(at);
      blockFrom.push("");
      blockTo.push("");
    }
    if (rec.type !== "process") {
      const b = blocks.length - 1;
      if (blockFrom[b] === "" || rec.at < blockFrom[b]!) blockFrom[b] = rec.at;
      if (rec.at > blockTo[b]!) blockTo[b] = rec.at;
    }
  });
  return { blocks, blockFrom, blockTo };
}

/** What `records` (with the spans `parseSegment` gave them, shifted by `base`) say for an index. */
export function indexBody(
  records: readonly JournalRecord[],
  spans: readonly number[],
  torn: boolean,
  base = 0,
): IndexBody {
  const runs = new Map<string, { run: Mutable<RunSummary>; start: number; end: number }>();
  let newestAt: number | null = null;
  records.forEach((rec, i) => {
    if (rec.type !== "process") {
      const t = Date.parse(rec.at);
      if (!Number.isNaN(t)) newestAt = later(newestAt, t);
    }
    let e = runs.get(rec.invocationId);
    if (e === undefined) {
      e = {
        run: { invocationId: rec.invocationId, segment: "" },
        start: spans[2 * i]! + base,
        end: 0,
      };
      runs.set(rec.invocationId, e);
    }
    e.end = spans[2 * i + 1]! + base;
    absorb(e.run, rec);
  });
  const sets = {
    surfaces: new Set<string>(),
    outcomes: new Set<string>(),
    reasons: new Set<string>(),
    commands: new Set<string>(),
    presets: new Set<string>(),
  };
  let from: string | undefined;
  let to: string | undefined;
  for (const { run } of runs.values()) {
    const at = when(run);
    if (from === undefined || at < from) from = at;
    if (to === undefined || at > to) to = at;
    if (run.surface !== undefined) sets.surfaces.add(run.surface);
    if (run.outcome !== undefined) sets.outcomes.add(run.outcome);
    if (run.reason !== undefined) sets.reasons.add(run.reason);
    if (run.command !== undefined) sets.commands.add(run.command);
    if (run.preset !== undefined) sets.presets.add(run.preset);
  }
  const ids = [...runs.keys()].sort();
  return {
    ids: listOf(ids),
    from: from ?? "",
    to: to ?? "",
    newestAt,
    surfaces: [...sets.surfaces].sort(),
    outcomes: [...sets.outcomes].sort(),
    reasons: [...sets.reasons].sort(),
    commands: [...sets.commands].sort(),
    presets: [...sets.presets].sort(),
    spans: ids.flatMap((id) => [runs.get(id)!.start, runs.get(id)!.end]),
    ...blocksOf(records, spans, base),
    torn,
  };
}

/**
 * The index of a segment extended by what was appended to it: every value of
 * either (a run split across the two contributes the values of both halves,
 * so the index still never rules out a run that is there).
 */
export function mergeBodies(prior: IndexBody, appended: IndexBody): IndexBody {
  if (prior.ids.count === 0) return appended;
  if (appended.ids.count === 0) return { ...prior, torn: appended.torn };
  const spans = new Map<string, [number, number]>();
  for (let i = 0; i < prior.ids.count; i++)
    spans.set(prior.ids.at(i), [prior.spans[2 * i]!, prior.spans[2 * i + 1]!]);
  for (let i = 0; i < appended.ids.count; i++) {
    const id = appended.ids.at(i);
    const end = appended.spans[2 * i + 1]!;
    const had = spans.get(id);
    spans.set(id, had === undefined ? [appended.spans[2 * i]!, end] : [had[0], end]);
  }
  const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])].sort();
  const ids = [...spans.keys()].sort();
  return {
    from: [prior.from, appended.from].sort()[0]!,
    to: [prior.to, appended.to].sort()[1]!,
    newestAt: later(prior.newestAt, appended.newestAt),
    surfaces: union(prior.surfaces, appended.surfaces),
    outcomes: union(prior.outcomes, appended.outcomes),
    reasons: union(prior.reasons, appended.reasons),
    commands: union(prior.commands, appended.commands),
    presets: union(prior.presets, appended.presets),
    ids: listOf(ids),
    spans: ids.flatMap((id) => spans.get(id)!),
    blocks: [...prior.blocks, ...appended.blocks],
    blockFrom: [...prior.blockFrom, ...appended.blockFrom],
    blockTo: [...prior.blockTo, ...appended.blockTo],
    torn: appended.torn,
  };
}
