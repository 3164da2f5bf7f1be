// What a publication leaves for the first reader of the revision it
// committed: the route check record (routes/_route-check.ts) of the files
// it wrote from checked inputs (the revision, its routes file, the parts of
// the packages it derived), each with the stamp it has as placed, and of
// every kept package's part the base's record vouched for. A reader then
// hashes only what changed since; help after an install starts as it does
// on the second run.

import { recordChecked, recordedStamps } from "../routes/index.js";

/** The revision a commit placed, with the stamps {@link commitRevision} gave. */
export interface Committed {
  readonly id: string;
  /** The revision it was published on (`null`: none). */
  readonly base: string | null;
  /** The stamps of what the commit wrote, or found with the bytes it would have written. */
  readonly stamps: ReadonlyMap<string, string>;
  /** The package digest of every part the revision's routes name. */
  readonly parts: Iterable<string>;
}

/** Records a committed revision's route cache files as checked. */
export function recordCommitted(root: string, committed: Committed): void {
  const stamps = new Map(committed.stamps);
  // A kept part is the same file with the same expected bytes: its base stamp still vouches.
  const base = committed.base === null ? new Map() : recordedStamps(root, committed.base);
  for (const digest of committed.parts) {
    const name = `part:${digest}`;
    const stamp = base.get(name);
    if (!stamps.has(name) && stamp !== undefined) stamps.set(name, stamp);
  }
  recordChecked(root, committed.id, stamps);
}
