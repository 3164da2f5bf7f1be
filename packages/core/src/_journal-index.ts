import { createHash, randomBytes } from "node:crypto";
import { type FileHandle, open, rename, unlink, writeFile } from "node:fs/promises";
import { CoreError } from "./_errors.js";
import { type JournalRecord, parseSegment, readingFile } from "./_journal.js";
import { JOURNAL_INDEX_MAX_BYTES, JOURNAL_MAX_BYTES } from "./_limits.js";
import { absorb, type Mutable, type RunFilter, type RunSummary, when } from "./_run-model.js";

/** The format an index file names on its first line; an index of another format is ignored. */
export const JOURNAL_INDEX_FORMAT = "rukh.journal-index/1";

/** An index keeps the time span of the records of each block of about this many bytes (64 KiB). */
const BLOCK_BYTES = 65_536;

/** How much of a segment's end the index's digest covers: a check every reader can afford. */
const STAMP_TAIL_BYTES = 65_536;

/** The segment an index describes, as it was when the index was written. */
export interface SegmentStamp {
  readonly size: number;
  readonly mtimeNs: string;
  /** `sha256:` of the segment's last {@link STAMP_TAIL_BYTES} bytes (all of them when smaller). */
  readonly tailSha256: string;
}

/**
 * What an archive segment holds, enough to pass it over: the span of its
 * runs' times, the values its runs have for each filter, and every
 * invocation id (sorted) with the byte span of its records.
 */
export interface SegmentIndex {
  readonly segment: SegmentStamp;
  /** The earliest and latest time of a run (its start, or its end for a refused call); "" for none. */
  readonly from: string;
  readonly to: string;
  readonly surfaces: readonly string[];
  readonly outcomes: readonly string[];
  readonly reasons: readonly string[];
  readonly commands: readonly string[];
  readonly presets: readonly string[];
  readonly ids: IdList;
  /** Per id, the offset of its first record's line and the end of its last. */
  readonly spans: ArrayLike<number>;
  /** Where each block of about 64 KiB begins (at a line), ascending. */
  readonly blocks: readonly number[];
  /** Per block, the earliest and latest `at` of its start and final records ("" for none). */
  readonly blockFrom: readonly string[];
  readonly blockTo: readonly string[];
  /** The segment ends with a line without its newline. */
  readonly torn: boolean;
}

type IndexBody = Omit<SegmentIndex, "segment">;

/** Sorted strings, read by position. */
export interface IdList {
  readonly count: number;
  at(i: number): string;
  /** Where `id` is, or -1. */
  find(id: string): number;
}

/** Binary search over `count` sorted items; `cmp(i)` orders item `i` against the one sought. */
function search(count: number, cmp: (i: number) => number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = cmp(mid);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

const listOf = (list: readonly string[]): IdList => ({
  count: list.length,
  at: (i) => list[i]!,
  find: (id) => search(list.length, (i) => (list[i]! < id ? -1 : list[i]! > id ? 1 : 0)),
});

/**
 * Ids that share one length are kept in the file as one string, so that a
 * reader parses one value per segment rather than one per call.
 */
const packedOf = (text: string, width: number): IdList => ({
  count: text.length / width,
  at: (i) => text.slice(i * width, (i + 1) * width),
  // Compared in place, code unit by code unit (as `<` compares strings): a lookup allocates nothing.
  find: (id) =>
    id.length !== width
      ? -1
      : search(text.length / width, (i) => {
          const base = i * width;
          for (let k = 0; k < width; k++) {
            const d = text.charCodeAt(base + k) - id.charCodeAt(k);
            if (d !== 0) return d;
          }
          return 0;
        }),
});

function idsToJson(ids: IdList): { width: number; packed?: string; list?: string[] } {
  const all = Array.from({ length: ids.count }, (_, i) => ids.at(i));
  const width = all[0]?.length ?? 0;
  return width > 0 && all.every((x) => x.length === width)
    ? { width, packed: all.join("") }
    : { width: 0, list: all };
}

/** The index file of an archive segment: `<sequence>.index.json` beside `<sequence>.jsonl`. */
export const indexFile = (segment: string) => segment.replace(/\.jsonl$/, ".index.json");

const sha256 = (bytes: Uint8Array | string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** What `records` (with the spans {@link parseSegment} gave them, shifted by `base`) say for an index. */
export function indexBody(
  records: readonly JournalRecord[],
  spans: readonly number[],
  torn: boolean,
  base = 0,
): IndexBody {
  const runs = new Map<string, { run: Mutable<RunSummary>; start: number; end: number }>();
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
    surfaces: [...sets.surfaces].sort(),
    outcomes: [...sets.outcomes].sort(),
    reasons: [...sets.reasons].sort(),
    commands: [...sets.commands].sort(),
    presets: [...sets.presets].sort(),
    spans: ids.flatMap((id) => [runs.get(id)!.start, runs.get(id)!.end]),
    blocks,
    blockFrom,
    blockTo,
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

/** Where `value` is in a sorted list, or -1. */
const sortedHas = (list: readonly string[], value: string) => listOf(list).find(value);

/** A 20-bit FNV-1a hash of an id, for {@link holds}. */
export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h & 0xfffff;
}

/** Per index, a bit per hash of its ids: most ids it lacks are ruled out without a search. */
const hashBits = new WeakMap<SegmentIndex, Uint32Array>();

function bitsOf(index: SegmentIndex): Uint32Array {
  let bits = hashBits.get(index);
  if (bits === undefined) {
    bits = new Uint32Array(1 << 15);
    for (let i = 0; i < index.ids.count; i++) {
      const h = idHash(index.ids.at(i));
      bits[h >>> 5]! |= 1 << (h & 31);
    }
    hashBits.set(index, bits);
  }
  return bits;
}

/**
 * Whether the segment has records of this invocation (`hash` is
 * {@link idHash} of it, when the caller asks many indexes about one id).
 */
export function holds(index: SegmentIndex, id: string, hash = idHash(id)): boolean {
  const bits = bitsOf(index);
  return (bits[hash >>> 5]! & (1 << (hash & 31))) !== 0 && index.ids.find(id) >= 0;
}

/** The byte span of an invocation's records in the segment, or `undefined` when it has none. */
export function spanOf(index: SegmentIndex, id: string): readonly [number, number] | undefined {
  const i = index.ids.find(id);
  return i < 0 ? undefined : [index.spans[2 * i]!, index.spans[2 * i + 1]!];
}

const inTimes = (from: string, to: string, f: RunFilter) =>
  (f.since === undefined || to >= f.since) && (f.until === undefined || from <= f.until);

/**
 * The byte ranges of the blocks whose records' times meet the filter's
 * `since`/`until`, within `[from, size)`, adjacent blocks joined. A run can
 * match only when the record that dates it (its start, or the final of a
 * refused call) is in one of them.
 */
export function timedRanges(index: SegmentIndex, f: RunFilter, from = 0): [number, number][] {
  const ranges: [number, number][] = [];
  const { blocks } = index;
  for (let b = 0; b < blocks.length; b++) {
    const end = blocks[b + 1] ?? index.segment.size;
    if (end <= from || !inTimes(index.blockFrom[b]!, index.blockTo[b]!, f)) continue;
    const last = ranges.at(-1);
    if (last !== undefined && last[1] === blocks[b]) last[1] = end;
    else ranges.push([blocks[b]!, end]);
  }
  return ranges;
}

/** False only when no run of the segment can match `filter`; true says it may. */
export function mayMatch(index: SegmentIndex, f: RunFilter): boolean {
  const has = (list: readonly string[], v: string | undefined) =>
    v === undefined || sortedHas(list, v) >= 0;
  return (
    index.ids.count > 0 &&
    has(index.surfaces, f.surface) &&
    has(index.outcomes, f.outcome) &&
    has(index.reasons, f.reason) &&
    has(index.commands, f.command) &&
    has(index.presets, f.preset) &&
    inTimes(index.from, index.to, f)
  );
}

/** The stamp of an open segment of `size` bytes. */
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

const isStrings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string");

/** The ids of an index body read from disk, when well formed (sorted: the file's digest vouches for packed ones). */
function idsFrom(v: unknown): IdList | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const { width, packed, list } = v as Record<string, unknown>;
  if (typeof width !== "number" || !Number.isSafeInteger(width) || width < 0) return undefined;
  if (width > 0)
    return typeof packed === "string" && packed.length % width === 0
      ? packedOf(packed, width)
      : undefined;
  if (!isStrings(list)) return undefined;
  for (let i = 1; i < list.length; i++) if (!(list[i - 1]! < list[i]!)) return undefined;
  return listOf(list);
}

/** Spans as the file keeps them: base64 of little-endian 32-bit offsets. */
function spansFrom(v: unknown, count: number, size: number): Uint32Array | undefined {
  if (typeof v !== "string") return undefined;
  const bytes = Buffer.from(v, "base64");
  if (bytes.length !== count * 8) return undefined;
  const spans = new Uint32Array(count * 2);
  for (let i = 0; i < spans.length; i++) spans[i] = bytes.readUInt32LE(i * 4);
  for (let i = 0; i < spans.length; i += 2)
    if (spans[i + 1]! <= spans[i]! || spans[i + 1]! > size) return undefined;
  return spans;
}

/** Checks an index body read from disk: shapes, ids, spans and blocks inside the segment. */
function checkBody(v: Record<string, unknown>): SegmentIndex | undefined {
  const lists = ["surfaces", "outcomes", "reasons", "commands", "presets"] as const;
  const s = v.segment as Record<string, unknown> | null;
  if (typeof s !== "object" || s === null) return undefined;
  if (
    !Number.isSafeInteger(s.size) ||
    typeof s.mtimeNs !== "string" ||
    typeof s.tailSha256 !== "string"
  )
    return undefined;
  if (typeof v.from !== "string" || typeof v.to !== "string" || typeof v.torn !== "boolean")
    return undefined;
  if (!lists.every((k) => isStrings(v[k]))) return undefined;
  const size = s.size as number;
  const ids = idsFrom(v.ids);
  const spans = ids === undefined ? undefined : spansFrom(v.spans, ids.count, size);
  if (ids === undefined || spans === undefined) return undefined;
  const blocks = v.blocks;
  if (!Array.isArray(blocks) || !isStrings(v.blockFrom) || !isStrings(v.blockTo)) return undefined;
  if (v.blockFrom.length !== blocks.length || v.blockTo.length !== blocks.length) return undefined;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (!Number.isSafeInteger(b) || b < (i === 0 ? 0 : blocks[i - 1] + 1) || b >= size)
      return undefined;
  }
  return { ...(v as unknown as SegmentIndex), ids, spans };
}

/**
 * Reads an index file: a first line naming the format and the digest of the
 * rest, then the body. Anything else — missing, too large, of another
 * format, a digest that does not match, a body of the wrong shape — is
 * `undefined`, never an error.
 */
async function readIndexFile(file: string): Promise<SegmentIndex | undefined> {
  const bytes = await readingFile(file, async (h) => {
    if ((await h.stat()).size > JOURNAL_INDEX_MAX_BYTES) return undefined;
    return h.readFile();
  }).catch(() => undefined);
  if (bytes === undefined) return undefined;
  const nl = bytes.indexOf(0x0a);
  if (nl < 0) return undefined;
  try {
    const head = JSON.parse(bytes.subarray(0, nl).toString("utf8"));
    const body = bytes.subarray(nl + 1);
    if (head?.format !== JOURNAL_INDEX_FORMAT || head.body !== sha256(body)) return undefined;
    const v = JSON.parse(body.toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? checkBody(v) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The index of an archive segment when it holds for the segment as it is
 * now (same size, modification time and digest of its end), else
 * `undefined`: the caller reads the segment, and may write a new index.
 */
export async function loadIndex(segment: string): Promise<SegmentIndex | undefined> {
  const index = await readIndexFile(indexFile(segment));
  if (index === undefined) return undefined;
  const now = await readingFile(segment, stampOf);
  return now !== undefined && sameStamp(now, index.segment) ? index : undefined;
}

/** Writes a segment's index whole (a temporary file renamed over the old one). */
export async function writeIndex(segment: string, index: SegmentIndex): Promise<void> {
  const file = indexFile(segment);
  const spans = Buffer.alloc(index.spans.length * 4);
  for (let i = 0; i < index.spans.length; i++) spans.writeUInt32LE(index.spans[i]!, i * 4);
  const body = JSON.stringify({
    ...index,
    ids: idsToJson(index.ids),
    spans: spans.toString("base64"),
  });
  const head = JSON.stringify({ format: JOURNAL_INDEX_FORMAT, body: sha256(body) });
  const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, `${head}\n${body}`, { mode: 0o600 });
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
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
  await writeIndex(segment, { segment: stamp, ...body }).catch(() => {});
}

/**
 * Brings an archive segment's index up to date after `appended` was written
 * at offset `before`: extended when the index it had held up to there (and
 * the segment ended with a whole line), else built from the whole segment.
 * Never fails the archiving: a reader rebuilds what is missing.
 */
export async function indexAfterAppend(
  segment: string,
  prior: SegmentIndex | undefined,
  appended: Buffer,
  before: number,
): Promise<void> {
  try {
    let body: IndexBody;
    if (prior !== undefined && !prior.torn && prior.segment.size === before) {
      const spans: number[] = [];
      const seg = parseSegment(appended, "", spans);
      body = mergeBodies(prior, indexBody(seg.records, spans, seg.tornTailBytes > 0, before));
    } else {
      const read = await readStamped(segment);
      if (read?.stamp === undefined) return;
      const spans: number[] = [];
      const seg = parseSegment(read.bytes, "", spans);
      await writeIndex(segment, {
        segment: read.stamp,
        ...indexBody(seg.records, spans, seg.tornTailBytes > 0),
      });
      return;
    }
    const stamp = await readingFile(segment, stampOf);
    if (stamp !== undefined) await writeIndex(segment, { segment: stamp, ...body });
  } catch {}
}
