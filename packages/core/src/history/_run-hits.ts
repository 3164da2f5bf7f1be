import { holds, idHashes, type RunSummary, type SegmentIndex, when } from "../journal/index.js";

/** A run a listing found, and how many of the segments it passed over are newer than the run's. */
interface Hit {
  readonly run: RunSummary;
  readonly newer: number;
  kept?: boolean;
}

/**
 * The runs a listing found that match its filter. A run is dropped when a
 * newer segment the listing passed over by its index has records of the
 * same call: the newest segment's view of a call wins, as when every
 * segment is read. That is asked lazily, only of the runs that can count —
 * enough of them to tell whether the listing has its fill, then the newest
 * in order — so a listing that passes over most of the history reads the
 * detail of almost none of it: each passed segment's header answers almost
 * every "not here" with its id filter.
 */
export class ListingHits {
  readonly #passed: readonly SegmentIndex[];
  readonly #hits: Hit[] = [];
  /** The hits before this position are settled, in order; #kept of them stay. */
  #settled = 0;
  #kept = 0;
  /** Runs asked about before they were added. */
  readonly #asked = new WeakMap<RunSummary, Hit>();

  /** `passed` is the listing's list of passed-over segments, newest first, which it keeps appending to. */
  constructor(passed: readonly SegmentIndex[]) {
    this.#passed = passed;
  }

  /** How many hits there are, settled or not. */
  get size(): number {
    return this.#hits.length;
  }

  /** Adds the runs of one segment, read after all the segments passed over so far. */
  add(runs: readonly RunSummary[]): void {
    const newer = this.#passed.length;
    for (const run of runs) {
      const asked = this.#asked.get(run);
      this.#hits.push(asked?.newer === newer ? asked : { run, newer });
    }
  }

  /** Whether a run of the segment being read would stay, were it added now (the answer is kept for {@link add}). */
  keepsNew(run: RunSummary): Promise<boolean> {
    let hit = this.#asked.get(run);
    if (hit?.newer !== this.#passed.length) {
      hit = { run, newer: this.#passed.length };
      this.#asked.set(run, hit);
    }
    return this.#keeps(hit);
  }

  /** Takes back the hits added since the listing had `size` of them. */
  truncate(size: number): void {
    for (let i = size; i < this.#settled; i++) if (this.#hits[i]!.kept) this.#kept--;
    this.#settled = Math.min(this.#settled, size);
    this.#hits.length = size;
  }

  /** Whether at least `n` of the hits stay. */
  async atLeast(n: number): Promise<boolean> {
    while (this.#kept < n && this.#settled < this.#hits.length) {
      if (await this.#keeps(this.#hits[this.#settled]!)) this.#kept++;
      this.#settled++;
    }
    return this.#kept >= n;
  }

  /** The newest `limit` hits that stay, newest first (a stable order among equal times). */
  async newest(limit: number): Promise<RunSummary[]> {
    const sorted = [...this.#hits].sort((a, b) =>
      when(a.run) < when(b.run) ? 1 : when(a.run) > when(b.run) ? -1 : 0,
    );
    const out: RunSummary[] = [];
    for (const hit of sorted) {
      if (out.length >= limit) break;
      if (await this.#keeps(hit)) out.push(hit.run);
    }
    return out;
  }

  async #keeps(hit: Hit): Promise<boolean> {
    if (hit.kept === undefined) {
      const id = hit.run.invocationId;
      const hashes = idHashes(id);
      hit.kept = true;
      for (let j = 0; j < hit.newer && hit.kept; j++)
        if (await holds(this.#passed[j]!, id, hashes)) hit.kept = false;
    }
    return hit.kept;
  }
}
