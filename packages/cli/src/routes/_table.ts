// Where the CLI's route table comes from: the verified route cache through
// the fast path, else `@rukh/profile` (the cache read again with its errors;
// for a revision published before route caches existed, its projection; and
// when its files are damaged, the packages in the store, verified).

import { cachedRoutes } from "./_fastpath.js";
import { type RouteSource, tableSource } from "./_source.js";

/** The active revision's routes (`revisionId` undefined before the first publication). */
export interface LoadedTable {
  readonly table: RouteSource;
  readonly revisionId: string | undefined;
  /** Only the commands the focus words needed: an unknown word is looked up in the whole table. */
  readonly partial?: boolean;
  /** Records the route cache the table came from as checked whole (see `readRouteCache`). */
  readonly remember?: () => void;
}

/** An empty table: what a built-in runs against when it needs no extension command. */
export const NO_COMMANDS: RouteSource = tableSource({ commands: [], groups: [] });

/**
 * Loads the route table of the state directory `root` (with `verified`,
 * from the descriptors, never the route cache; with `focus`, from the cache
 * only what resolving those command words needs); throws what reading it
 * threw.
 */
export async function loadTable(
  root: string,
  verified = false,
  focus?: readonly string[],
): Promise<LoadedTable> {
  const fast = verified ? undefined : cachedRoutes(root, focus);
  if (fast !== undefined)
    return {
      table: fast.source,
      revisionId: fast.revisionId,
      partial: fast.partial,
      remember: fast.remember,
    };
  const profile = await import("@rukh/profile");
  let cached: Awaited<ReturnType<typeof profile.readActiveRoutes>> = null;
  try {
    if (!verified) cached = await profile.readActiveRoutes(root);
  } catch (e) {
    // A damaged cache is only a cache: rebuild the table from the revision.
    if (!(e instanceof profile.ProfileError && e.code === "invalid_state")) throw e;
  }
  if (cached !== null)
    return { table: tableSource(cached.routes, cached.dev), revisionId: cached.revisionId };
  const state = new profile.StateDirectory(root);
  const revisionId = (await state.activeRevisionId()) ?? undefined;
  if (revisionId === undefined) return { table: NO_COMMANDS, revisionId };
  // A revision published before route caches existed: build the table once
  // from its projection. Verified, or when the projection's files are
  // damaged too: from the packages in the store, each verified.
  let routes: Awaited<ReturnType<typeof state.verifiedRoutes>> | undefined;
  if (!verified)
    try {
      routes = (await state.projection(revisionId)).routes;
    } catch (e) {
      if (!(e instanceof profile.ProfileError && e.code === "invalid_state")) throw e;
    }
  routes ??= await state.verifiedRoutes(revisionId);
  const dev = new Map(
    (await state.readRevision(revisionId)).extensions.flatMap((e) =>
      e.dev === undefined ? [] : [[e.id, e.dev] as const],
    ),
  );
  return { table: tableSource(routes, dev), revisionId };
}

/**
 * The command words a run of `rest` resolves (what `cachedRoutes` reads the
 * routes of), up to the first flag: the words after `help`; for
 * `__complete`, the words before the one being typed; none for `completion`,
 * which prints a script.
 */
export function focusOf(rest: readonly string[]): readonly string[] {
  const [first, ...after] = rest;
  const words =
    first === "help"
      ? after
      : first === "completion"
        ? []
        : first === "__complete"
          ? (after[0] === "--" ? after.slice(1) : after).slice(0, -1)
          : rest;
  // Command words end at the first flag, as the route index resolves them.
  const flag = words.findIndex((w) => w.startsWith("-"));
  return flag === -1 ? words : words.slice(0, flag);
}
