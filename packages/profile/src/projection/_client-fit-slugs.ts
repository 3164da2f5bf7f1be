// The client-fit slugs of a revision's tools, kept in its catalog so that
// the next publication checks its client-fit names at the cost of what it
// changes. Only tools whose slug another tool shares can have client-fit
// names that clash (each name is the slug and digits of a fingerprint), so a
// check hashes only those; what it needs is every slug (to see a new tool
// meet one) and, for each slug two or more tools share, their identities.

import { clientFitSlug } from "./_tool-names.js";

/** Every slug of a revision's tools once, and the identities of each slug two or more share. */
export interface SlugIndex {
  readonly slugs: ReadonlySet<string>;
  readonly shared: ReadonlyMap<string, readonly string[]>;
}

/** How a {@link SlugIndex} is written in a catalog's header: the slugs sorted, one per line, and the shared ones' identities sorted. */
export interface SlugIndexJson {
  readonly slugs: string;
  readonly shared: Readonly<Record<string, readonly string[]>>;
}

/** The index of `identities` (each a tool's), from scratch. */
export function slugIndexOf(identities: Iterable<string>): SlugIndex {
  const holders = new Map<string, string[]>();
  for (const identity of identities) {
    const s = clientFitSlug(identity);
    const h = holders.get(s);
    if (h === undefined) holders.set(s, [identity]);
    else h.push(identity);
  }
  const shared = new Map<string, readonly string[]>();
  for (const [s, h] of holders) if (h.length > 1) shared.set(s, h);
  return { slugs: new Set(holders.keys()), shared };
}

/**
 * The index of a revision made from `base`'s by taking away the tools
 * `dropped` and adding those `added` (identities); `undefined` when an added
 * tool's slug is one a single tool held, whose identity the index does not
 * keep: the caller then makes the index from every tool.
 */
export function carriedSlugIndex(
  base: SlugIndex,
  dropped: Iterable<string>,
  added: Iterable<string>,
): SlugIndex | undefined {
  const slugs = new Set(base.slugs);
  const shared = new Map(base.shared);
  for (const identity of dropped) {
    const s = clientFitSlug(identity);
    const h = shared.get(s);
    if (h === undefined) slugs.delete(s);
    else if (h.length > 2)
      shared.set(
        s,
        h.filter((i) => i !== identity),
      );
    else shared.delete(s);
  }
  for (const identity of added) {
    const s = clientFitSlug(identity);
    const h = shared.get(s);
    if (h !== undefined) shared.set(s, [...h, identity]);
    else if (slugs.has(s)) return undefined;
    else slugs.add(s);
  }
  return { slugs, shared };
}

/** Every identity whose slug another tool shares: all a single-naming check hashes. */
export function sharedIdentities(index: SlugIndex): string[] {
  return [...index.shared.values()].flat();
}

/** The index as a catalog header writes it: the same text for the same tools, however it was made. */
export function slugIndexJson(index: SlugIndex): SlugIndexJson {
  // No prototype: a slug such as `__proto__` is a key like any other.
  const shared: Record<string, readonly string[]> = Object.create(null);
  for (const s of [...index.shared.keys()].sort()) shared[s] = [...index.shared.get(s)!].sort();
  return { slugs: [...index.slugs].sort().join("\n"), shared };
}

/** The index a catalog header holds, or `undefined` when it is not one. */
export function slugIndexFromJson(x: { slugs?: unknown; shared?: unknown }): SlugIndex | undefined {
  if (typeof x.slugs !== "string" || typeof x.shared !== "object" || x.shared === null)
    return undefined;
  const slugs = new Set(x.slugs === "" ? [] : x.slugs.split("\n"));
  const shared = new Map<string, readonly string[]>();
  for (const [s, h] of Object.entries(x.shared)) {
    if (!Array.isArray(h) || h.length < 2 || !h.every((i) => typeof i === "string"))
      return undefined;
    if (!slugs.has(s)) return undefined;
    shared.set(s, h);
  }
  return { slugs, shared };
}
