// The invocation ids of an archive segment's index: the sorted list kept in
// its detail, and the filter kept in its header that rules out, without the
// list, almost every id the segment does not have.

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

/** A sorted list read as an {@link IdList}. */
export const listOf = (list: readonly string[]): IdList => ({
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

/** The ids as the file keeps them: packed when they share one length, else a list. */
export function idsToJson(ids: IdList): { width: number; packed?: string; list?: string[] } {
  const all = Array.from({ length: ids.count }, (_, i) => ids.at(i));
  const width = all[0]?.length ?? 0;
  return width > 0 && all.every((x) => x.length === width)
    ? { width, packed: all.join("") }
    : { width: 0, list: all };
}

const isStrings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string");

/** The ids of an index read from disk, when well formed (sorted: the file's digest vouches for packed ones). */
export function idsFrom(v: unknown): IdList | undefined {
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

/**
 * A Bloom filter of a segment's ids: {@link ID_FILTER_HASHES} bits set per
 * id among about {@link ID_FILTER_BITS_PER_ID} per id. "No" is certain;
 * "maybe" is wrong for about one id in 15,000 the segment lacks, and the
 * list in the detail settles it.
 */
export interface IdFilter {
  readonly bytes: Uint8Array;
  readonly hashes: number;
}

const ID_FILTER_BITS_PER_ID = 20;
const ID_FILTER_HASHES = 14;

/** Two 32-bit hashes of an id (FNV-1a and a second multiplier, each mixed), from which every probe is derived. */
export function idHashes(id: string): readonly [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  const mix = (h: number) => {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  // An odd step, so that the probes of one id differ.
  return [mix(a), (mix(b) | 1) >>> 0];
}

/** The bit of probe `k` of an id, among `bits`. */
const probe = ([a, b]: readonly [number, number], k: number, bits: number) =>
  ((a + Math.imul(k, b)) >>> 0) % bits;

/** The filter of a list of ids. */
export function filterOf(ids: IdList): IdFilter {
  const bytes = new Uint8Array(Math.max(8, Math.ceil((ids.count * ID_FILTER_BITS_PER_ID) / 8)));
  const bits = bytes.length * 8;
  for (let i = 0; i < ids.count; i++) {
    const h = idHashes(ids.at(i));
    for (let k = 0; k < ID_FILTER_HASHES; k++) {
      const bit = probe(h, k, bits);
      bytes[bit >>> 3]! |= 1 << (bit & 7);
    }
  }
  return { bytes, hashes: ID_FILTER_HASHES };
}

/** False when the filter's segment certainly has no record of the id whose {@link idHashes} are `h`. */
export function mayHold(filter: IdFilter, h: readonly [number, number]): boolean {
  const bits = filter.bytes.length * 8;
  for (let k = 0; k < filter.hashes; k++) {
    const bit = probe(h, k, bits);
    if ((filter.bytes[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

/** The filter as the header keeps it. */
export const filterToJson = (f: IdFilter) => ({
  hashes: f.hashes,
  bits: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.length).toString("base64"),
});

/** A filter read from a header, when well formed. */
export function filterFrom(v: unknown): IdFilter | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const { hashes, bits } = v as Record<string, unknown>;
  if (!Number.isSafeInteger(hashes) || (hashes as number) < 1 || (hashes as number) > 64)
    return undefined;
  if (typeof bits !== "string") return undefined;
  const bytes = Buffer.from(bits, "base64");
  return bytes.length === 0 ? undefined : { bytes, hashes: hashes as number };
}
