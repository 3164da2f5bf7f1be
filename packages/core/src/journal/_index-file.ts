// The index file of an archive segment, `<sequence>.index.json`, byte by
// byte: a first line naming the format and the digest of each part, then
// the header on one line, then the detail. A reader reads the first two
// lines to pass a segment over, and the detail only when it needs an id's
// bytes or a block's times.
import { createHash, randomBytes } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { rename, unlink, writeFile } from "node:fs/promises";
import { JOURNAL_INDEX_MAX_BYTES } from "../contract/index.js";
import type { IndexBody, IndexDetail, IndexHeader, SegmentStamp } from "./_index-body.js";
import { filterFrom, filterOf, filterToJson, idsFrom, idsToJson } from "./_index-ids.js";
import { readingFile } from "./_journal.js";

/** The format an index file names on its first line; an index of another format is ignored. */
export const JOURNAL_INDEX_FORMAT = "rukh.journal-index/2";

/** How much of an index file a reader reads first: the header of a full segment's index fits. */
const FIRST_READ_BYTES = 65_536;

/** The index file of an archive segment: `<sequence>.index.json` beside `<sequence>.jsonl`. */
export const indexFile = (segment: string) => segment.replace(/\.jsonl$/, ".index.json");

export const sha256 = (bytes: Uint8Array | string) =>
  `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** A header read from an index file, with where its detail begins and the digest the detail must have. */
export interface HeaderRead {
  readonly header: IndexHeader;
  readonly detailAt: number;
  readonly detailSha256: string;
}

/** Writes a segment's index whole (a temporary file renamed over the old one). */
export async function writeIndex(
  segment: string,
  stamp: SegmentStamp,
  body: IndexBody,
): Promise<void> {
  const file = indexFile(segment);
  const spans = Buffer.alloc(body.spans.length * 4);
  for (let i = 0; i < body.spans.length; i++) spans.writeUInt32LE(body.spans[i]!, i * 4);
  const header = JSON.stringify({
    segment: stamp,
    from: body.from,
    to: body.to,
    newestAt: body.newestAt,
    surfaces: body.surfaces,
    outcomes: body.outcomes,
    reasons: body.reasons,
    commands: body.commands,
    presets: body.presets,
    torn: body.torn,
    count: body.ids.count,
    idFilter: filterToJson(filterOf(body.ids)),
  });
  const detail = JSON.stringify({
    ids: idsToJson(body.ids),
    spans: spans.toString("base64"),
    blocks: body.blocks,
    blockFrom: body.blockFrom,
    blockTo: body.blockTo,
  });
  const head = JSON.stringify({
    format: JOURNAL_INDEX_FORMAT,
    header: sha256(header),
    detail: sha256(detail),
  });
  const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, `${head}\n${header}\n${detail}`, { mode: 0o600 });
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
}

const isStrings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string");

const LISTS = ["surfaces", "outcomes", "reasons", "commands", "presets"] as const;

/** Checks a header read from disk: its shapes and the segment it holds for. */
function checkHeader(v: Record<string, unknown>): IndexHeader | undefined {
  const s = v.segment as Record<string, unknown> | null;
  if (typeof s !== "object" || s === null) return undefined;
  if (
    !Number.isSafeInteger(s.size) ||
    (s.size as number) < 0 ||
    typeof s.mtimeNs !== "string" ||
    typeof s.tailSha256 !== "string"
  )
    return undefined;
  if (typeof v.from !== "string" || typeof v.to !== "string" || typeof v.torn !== "boolean")
    return undefined;
  if (v.newestAt !== null && !Number.isFinite(v.newestAt)) return undefined;
  if (!Number.isSafeInteger(v.count) || (v.count as number) < 0) return undefined;
  if (!LISTS.every((k) => isStrings(v[k]))) return undefined;
  const idFilter = filterFrom(v.idFilter);
  return idFilter === undefined ? undefined : { ...(v as unknown as IndexHeader), idFilter };
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

/** Checks a detail read from disk against its header: as many ids, spans and blocks inside the segment. */
function checkDetail(v: Record<string, unknown>, header: IndexHeader): IndexDetail | undefined {
  const { size } = header.segment;
  const ids = idsFrom(v.ids);
  if (ids === undefined || ids.count !== header.count) return undefined;
  const spans = spansFrom(v.spans, ids.count, size);
  if (spans === undefined) return undefined;
  const { blocks, blockFrom, blockTo } = v;
  if (!Array.isArray(blocks) || !isStrings(blockFrom) || !isStrings(blockTo)) return undefined;
  if (blockFrom.length !== blocks.length || blockTo.length !== blocks.length) return undefined;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (!Number.isSafeInteger(b) || b < (i === 0 ? 0 : blocks[i - 1] + 1) || b >= size)
      return undefined;
  }
  return { size, ids, spans, blocks, blockFrom, blockTo };
}

const asObject = (text: string): Record<string, unknown> | undefined => {
  const v: unknown = JSON.parse(text);
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
};

/** The first two lines of an open index file, reading more than the first 64 KiB only when they need it. */
async function firstLines(h: FileHandle): Promise<[Buffer, Buffer, number] | undefined> {
  const { size } = await h.stat();
  if (size > JOURNAL_INDEX_MAX_BYTES) return undefined;
  let buf = Buffer.alloc(Math.min(size, FIRST_READ_BYTES));
  for (let have = 0; ; ) {
    const { bytesRead } = await h.read(buf, have, buf.length - have, have);
    have += bytesRead;
    const one = buf.indexOf(0x0a);
    const two = one < 0 ? -1 : buf.indexOf(0x0a, one + 1);
    if (two >= 0 && two < have) return [buf.subarray(0, one), buf.subarray(one + 1, two), two + 1];
    if (bytesRead === 0 || have >= size) return undefined;
    if (have === buf.length) {
      const more = Buffer.alloc(Math.min(size, buf.length * 4));
      buf.copy(more);
      buf = more;
    }
  }
}

/**
 * Reads an index file's header: the first line must name the format and
 * the digests, the header must match its digest and be of the right shape.
 * Anything else — missing, too large, of another format, damaged — is
 * `undefined`, never an error.
 */
export async function readHeader(file: string): Promise<HeaderRead | undefined> {
  try {
    const lines = await readingFile(file, firstLines);
    if (lines === undefined) return undefined;
    const [first, second, detailAt] = lines;
    const head = asObject(first.toString("utf8"));
    if (head?.format !== JOURNAL_INDEX_FORMAT || typeof head.detail !== "string") return undefined;
    if (head.header !== sha256(second)) return undefined;
    const v = asObject(second.toString("utf8"));
    const header = v === undefined ? undefined : checkHeader(v);
    return header && { header, detailAt, detailSha256: head.detail };
  } catch {
    return undefined;
  }
}

/**
 * Reads the detail of an index file whose header was read: `undefined`,
 * never an error, when it no longer matches the digest the header's line
 * named (damaged, or the file replaced since) or is of the wrong shape.
 */
export async function readDetail(file: string, read: HeaderRead): Promise<IndexDetail | undefined> {
  try {
    const bytes = await readingFile(file, async (h) => {
      const { size } = await h.stat();
      if (size > JOURNAL_INDEX_MAX_BYTES || size < read.detailAt) return undefined;
      const buf = Buffer.alloc(size - read.detailAt);
      const { bytesRead } = await h.read(buf, 0, buf.length, read.detailAt);
      return buf.subarray(0, bytesRead);
    });
    if (bytes === undefined || sha256(bytes) !== read.detailSha256) return undefined;
    const v = asObject(bytes.toString("utf8"));
    return v === undefined ? undefined : checkDetail(v, read.header);
  } catch {
    return undefined;
  }
}
