import type { ExtensionDescriptor } from "@rukh/descriptor";
import { type RouteSet, readRouteCache, resolveStateDir } from "@rukh/profile/route-cache";
import type { PublishedDescriptor, RouteSource } from "./_source.js";

// Listing, help and completion must start about as fast as bare Node, and
// importing @rukh/profile's main entry (zlib, the descriptor and JSON
// validators) costs most of that budget; its route-cache entry needs only
// node:fs and a hash. Whenever the cache is not there or not right, the
// caller takes the authoritative path (`readActiveRoutes`, `projection()`). A
// contract test (test/routes/fastpath.test.ts) keeps the two in step.

/** The state directory of `brand` (see `resolveStateDir` of @rukh/profile, its one home). */
export function stateDirOf(
  brand: string,
  env: Readonly<Record<string, string | undefined>>,
  home: string | undefined,
): string {
  return resolveStateDir({ brand, env, ...(home !== undefined && { home }) });
}

/**
 * The active revision's verified route cache as a lazy source (the one
 * reader, `@rukh/profile/route-cache`, which loads nothing else of the
 * profile); `undefined` when the authoritative path must decide. With
 * `focus`, the command words typed, only what resolving them needs is read:
 * for no words the root listing (groups and one-word commands), for a first
 * word with commands under it that word's bucket, else every command (an
 * unknown word is matched against all of them).
 */
export function cachedRoutes(
  root: string,
  focus?: readonly string[],
): { revisionId: string; source: RouteSource; partial: boolean; remember: () => void } | undefined {
  const r = readRouteCache(root);
  if (!r.ok) return undefined;
  const { revisionId, remember } = r;
  const all: RouteSource = {
    dev: r.dev,
    groups: r.groups,
    get commands() {
      return r.commands;
    },
    route: (i) => r.route(i),
    published: (i) => published(r, i),
  };
  // `all` is every command, each read only if asked for.
  if (focus === undefined) return { revisionId, source: all, partial: false, remember };
  if (focus.length === 0) return { revisionId, source: rootSource(r), partial: true, remember };
  let bucket: ReturnType<typeof r.bucket>;
  try {
    bucket = r.bucket(focus[0]!);
  } catch {
    return undefined;
  }
  if (bucket === undefined) return { revisionId, source: all, partial: false, remember };
  const b = bucket;
  return {
    revisionId,
    source: {
      dev: r.dev,
      groups: r.groups,
      commands: b.commands,
      route: (i) => b.route(i),
      published: (i) => published(b, i),
    },
    partial: true,
    remember,
  };
}

/** The descriptor the part of `commands[i]`'s package holds, with that package's digest. */
function published(set: RouteSet, i: number): PublishedDescriptor | undefined {
  const descriptor = set.descriptor(i) as ExtensionDescriptor | undefined;
  return descriptor === undefined ? undefined : { package: set.row(i).part, descriptor };
}

/**
 * The root listing from the header alone: the groups (a first word no group
 * declares is an implicit group) and the commands with a one-word path or
 * alias, whose routes are read from their word's bucket when asked for.
 */
function rootSource(r: Extract<ReturnType<typeof readRouteCache>, { ok: true }>): RouteSource {
  // A word that is itself a command is no group: the route index drops a group an entry shadows.
  const declared = new Set(r.groups.map((g) => g.path.join(" ")));
  const implicit = r.words
    .filter((w) => !declared.has(w))
    .map((w) => ({ path: [w], summary: "", extensions: [] }));
  return {
    dev: r.dev,
    groups: [...r.groups, ...implicit],
    commands: r.tops,
    route: (i) => {
      const [b, n] = top(i);
      return b.route(n);
    },
    published: (i) => {
      const [b, n] = top(i);
      return published(b, n);
    },
  };
  function top(i: number): [RouteSet, number] {
    const t = r.tops[i]!;
    const b = r.bucket(t.word)!;
    const key = t.path.join(" ");
    return [b, b.commands.findIndex((c) => c.path.join(" ") === key)];
  }
}
