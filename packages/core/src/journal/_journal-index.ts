import { type FileHandle, open } from "node:fs/promises";
import { CoreError, JOURNAL_MAX_BYTES } from "../contract/index.js";
import {
  type IndexBody,
  type IndexDetail,
  type IndexHeader,
  indexBody,
  mergeBodies,
  type SegmentStamp,
} from "./_index-body.js";
import {
  type HeaderRead,
  indexFile,
  readDetail,
  readHeader,
  sha256,
  writeIndex,
} from "./_index-file.js";
import { idHashes, listOf, mayHold } from "./_index-ids.js";
import { type JournalRecord, parseSegment, readingFile } from "./_journal.js";
import type { RunFilter } from "./_run-model.js";

export type { IndexDetail, IndexHeader, SegmentStamp } from "./_index-body.js";
export { indexFile, JOURNAL_INDEX_FORMAT } from "./_index-file.js";

/** How much of a segment's end the index's digest covers: a check every reader can afford. */
const STAMP_TAIL_BYTES = 65_536;

/**
 * The index of an archive segment that holds for it: the header, read and
 * checked against the segment, and the detail, read on first use.
 */
export interface SegmentIndex {
  readonly header: IndexHeader;
  /**
   * The ids, their spans and the blocks' times: from the index file when its
   * detail still matches the digest its first line names, else from the
   * segment read whole (and indexed anew); an empty detail when the segment
   * is gone.
   */
  detail(): Promise<IndexDetail>;
}

/** The stamp of an open segment. */
async function stampOf(h: FileHandle): Promise<SegmentStamp> {
  const st = await h.stat({ bigint: true });
  const size = Number(st.size);
  const n = Math.min(size, STAMP_TAIL_BYTES);
  const tail = Buffer.alloc(n);
  if (n > 0) await h.read(tail, 0, n, size - n);
  return { size, mtimeNs: String(st.mtimeNs), tailSha256: sha256(tail) };
}

const sameStamp = (a: SegmentStamp, b: SegmentStamp) =>
  a.size === b.size && a.mtimeNs === b.mtimeNs && a.tailSha256 === b.tailSha256;

const EMPTY: IndexDetail = {
  size: 0,
  ids: listOf([]),
  spans: [],
  blocks: [],
  blockFrom: [],
  blockTo: [],
};

/** A segment read whole and parsed, its index written when nothing changed it while it was read. */
async function detailFromSegment(segment: string): Promise<IndexDetail> {
  const read = await readStamped(segment);
  if (read === undefined) return EMPTY;
  const spans: number[] = [];
  const seg = parseSegment(read.bytes, "", spans);
  const body = indexBody(seg.records, spans, seg.tornTailBytes > 0);
  if (read.stamp !== undefined) await writeIndex(segment, read.stamp, body).catch(() => {});
  return { ...body, size: read.bytes.length };
}

/**
 * The index of an archive segment when its header holds for the segment as
 * it is now (same size, modification time and digest of its end), else
 * `undefined`: the caller reads the segment, and may write a new index.
 * Only the header is read here.
 */
export async function loadIndex(segment: string): Promise<SegmentIndex | undefined> {
  const read = await readHeader(indexFile(segment));
  if (read === undefined) return undefined;
  const now = await readingFile(segment, stampOf);
  if (now === undefined || !sameStamp(now, read.header.segment)) return undefined;
  return indexOver(segment, read);
}

function indexOver(segment: string, read: HeaderRead): SegmentIndex {
  let detail: Promise<IndexDetail> | undefined;
  return {
    header: read.header,
    detail: () => {
      detail ??= readDetail(indexFile(segment), read).then((d) => d ?? detailFromSegment(segment));
      return detail;
    },
  };
}

/** The byte span of an invocation's records in the segment, or `undefined` when it has none. */
export function spanOf(detail: IndexDetail, id: string): readonly [number, number] | undefined {
  const i = detail.ids.find(id);
  return i < 0 ? undefined : [detail.spans[2 * i]!, detail.spans[2 * i + 1]!];
}

/**
 * Whether the segment has records of this invocation (`hashes` are
 * {@link idHashes} of it, when the caller asks many indexes about one id):
 * the header's filter answers most noes, the detail the rest.
 */
export async function holds(
  index: SegmentIndex,
  id: string,
  hashes = idHashes(id),
): Promise<boolean> {
  return mayHold(index.header.idFilter, hashes) && (await index.detail()).ids.find(id) >= 0;
}

const inTimes = (from: string, to: string, f: RunFilter) =>
  (f.since === undefined || to >= f.since) && (f.until === undefined || from <= f.until);

/** A block of a segment whose records' times meet a filter's `since`/`until`. */
export interface TimedBlock {
  readonly start: number;
  readonly end: number;
  /** The latest `at` of its start and final records. */
  readonly to: string;
}

/**
 * The blocks whose records' times meet the filter's `since`/`until`, in file
 * order. A run can match only when the record that dates it (its start, or
 * the final of a refused call) is in one of them, and it is then no later
 * than that block's `to`.
 */
export function timedBlocks(detail: IndexDetail, f: RunFilter): TimedBlock[] {
  const out: TimedBlock[] = [];
  const { blocks } = detail;
  for (let b = 0; b < blocks.length; b++)
    if (inTimes(detail.blockFrom[b]!, detail.blockTo[b]!, f))
      out.push({ start: blocks[b]!, end: blocks[b + 1] ?? detail.size, to: detail.blockTo[b]! });
  return out;
}

/** The byte ranges of the {@link timedBlocks} within `[from, size)`, adjacent blocks joined. */
export function timedRanges(detail: IndexDetail, f: RunFilter, from = 0): [number, number][] {
  const ranges: [number, number][] = [];
  for (const { start, end } of timedBlocks(detail, f)) {
    if (end <= from) continue;
    const last = ranges.at(-1);
    if (last !== undefined && last[1] === start) last[1] = end;
    else ranges.push([start, end]);
  }
  return ranges;
}

/** False only when no run of the segment can match `filter`; true says it may. */
export function mayMatch(header: IndexHeader, f: RunFilter): boolean {
  const has = (list: readonly string[], v: string | undefined) =>
    v === undefined || listOf(list).find(v) >= 0;
  return (
    header.count > 0 &&
    has(header.surfaces, f.surface) &&
    has(header.outcomes, f.outcome) &&
    has(header.reasons, f.reason) &&
    has(header.commands, f.command) &&
    has(header.presets, f.preset) &&
    inTimes(header.from, header.to, f)
  );
}

/**
 * Reads an open segment whole, with its stamp when nothing changed it while
 * it was read (then an index built from the bytes holds for it).
 */
export async function readWhole(
  h: FileHandle,
): Promise<{ bytes: Buffer; stamp: SegmentStamp | undefined }> {
  const before = await stampOf(h);
  const bytes = await h.readFile();
  const after = await stampOf(h);
  return {
    bytes,
    stamp: sameStamp(before, after) && bytes.length === after.size ? after : undefined,
  };
}

/**
 * A whole segment as {@link readWhole} gives it, at most
 * {@link JOURNAL_MAX_BYTES} (else `journal_too_large`); `undefined` when it
 * is gone.
 */
export async function readStamped(
  file: string,
): Promise<{ bytes: Buffer; stamp: SegmentStamp | undefined } | undefined> {
  let h: FileHandle;
  try {
    h = await open(file, "r");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw new CoreError("journal_failed", `cannot open the journal segment ${file}`, { cause: e });
  }
  try {
    const { size } = await h.stat();
    if (size > JOURNAL_MAX_BYTES)
      throw new CoreError(
        "journal_too_large",
        `the journal segment ${file} has ${size} bytes; at most ${JOURNAL_MAX_BYTES} are read`,
      );
    return await readWhole(h);
  } finally {
    await h.close();
  }
}

/** Writes the index of a segment just read whole and parsed; never fails its caller. */
export async function indexRead(
  segment: string,
  stamp: SegmentStamp,
  parsed: { records: readonly JournalRecord[]; spans: readonly number[]; torn: boolean },
): Promise<void> {
  const body = indexBody(parsed.records, parsed.spans, parsed.torn);
  await writeIndex(segment, stamp, body).catch(() => {});
}

/** An archive segment's index read whole (its detail too), before the archiver appends to the segment. */
export interface HeldIndex {
  readonly stamp: SegmentStamp;
  readonly body: IndexBody;
}

/** The index of an archive segment, detail and all, when it holds for the segment as it is now. */
export async function loadWholeIndex(segment: string): Promise<HeldIndex | undefined> {
  const index = await loadIndex(segment);
  if (index === undefined) return undefined;
  const h = index.header;
  const d = await index.detail();
  // A detail that had to be read from the segment describes what it holds now.
  if (d.size !== h.segment.size) return undefined;
  return {
    stamp: h.segment,
    body: {
      from: h.from,
      to: h.to,
      newestAt: h.newestAt,
      surfaces: h.surfaces,
      outcomes: h.outcomes,
      reasons: h.reasons,
      commands: h.commands,
      presets: h.presets,
      torn: h.torn,
      ids: d.ids,
      spans: d.spans,
      blocks: d.blocks,
      blockFrom: d.blockFrom,
      blockTo: d.blockTo,
    },
  };
}

/**
 * Brings an archive segment's index up to date after `appended` was written
 * at offset `before`: extended when the index read before the append held
 * up to there (and the segment ended with a whole line), else built from the
 * whole segment. Never fails the archiving: a reader rebuilds what is missing.
 */
export async function indexAfterAppend(
  segment: string,
  prior: HeldIndex | undefined,
  appended: Buffer,
  before: number,
): Promise<void> {
  try {
    if (prior !== undefined && !prior.body.torn && prior.stamp.size === before) {
      const spans: number[] = [];
      const seg = parseSegment(appended, "", spans);
      const added = indexBody(seg.records, spans, seg.tornTailBytes > 0, before);
      const stamp = await readingFile(segment, stampOf);
      if (stamp !== undefined) await writeIndex(segment, stamp, mergeBodies(prior.body, added));
      return;
    }
    const read = await readStamped(segment);
    if (read?.stamp === undefined) return;
    const spans: number[] = [];
    const seg = parseSegment(read.bytes, "", spans);
    await writeIndex(segment, read.stamp, indexBody(seg.records, spans, seg.tornTailBytes > 0));
  } catch {}
}
