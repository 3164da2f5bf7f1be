// Records read from byte ranges of a segment, each with the offset of its
// line, and runs folded from records: what the readers that use an index
// (one call's bytes, the blocks of a time window) share.
import {
  absorb,
  type JournalRecord,
  type Mutable,
  parseSegment,
  type RunSummary,
  readingFile,
} from "../journal/index.js";

/** A record of a segment with the offset of its line. */
export type Placed = { readonly at: number; readonly rec: JournalRecord };

/** Runs folded from records, one per invocation id, in the order they first appear. */
export function foldRuns(records: Iterable<JournalRecord>, name: string): Mutable<RunSummary>[] {
  const runs = new Map<string, Mutable<RunSummary>>();
  for (const rec of records) {
    let r = runs.get(rec.invocationId);
    if (r === undefined) {
      r = { invocationId: rec.invocationId, segment: name };
      runs.set(rec.invocationId, r);
    }
    absorb(r, rec);
  }
  return [...runs.values()];
}

/** The records in bytes `[start, end)` of a segment (both at line starts), placed at their offsets. */
export async function placedIn(
  file: string,
  name: string,
  [start, end]: readonly [number, number],
): Promise<Placed[]> {
  const spans: number[] = [];
  const bytes = await readingFile(file, async (h) => {
    const buf = Buffer.alloc(end - start);
    const { bytesRead } = await h.read(buf, 0, buf.length, start);
    return buf.subarray(0, bytesRead);
  });
  if (bytes === undefined) return [];
  return parseSegment(bytes, name, spans).records.map(
    (rec, i): Placed => ({ at: start + spans[2 * i]!, rec }),
  );
}

/** Joins overlapping or touching ranges, in file order. */
export function joined(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = out.at(-1);
    if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The parts of `ranges` outside the joined ranges `done`. */
export function outside(
  ranges: readonly (readonly [number, number])[],
  done: readonly (readonly [number, number])[],
): [number, number][] {
  const out: [number, number][] = [];
  for (let [a, b] of ranges) {
    for (const [s, e] of done) {
      if (e <= a || s >= b) continue;
      if (s > a) out.push([a, s]);
      a = Math.max(a, e);
    }
    if (a < b) out.push([a, b]);
  }
  return out;
}
