import { homedir } from "node:os";
import { join } from "node:path";
import { readRouteCache } from "@rukh/profile/route-cache";
import type { RouteSource } from "./_routes.js";

// Listing, help and completion must start about as fast as bare Node, and
// importing @rukh/profile's main entry (zlib, the descriptor and JSON
// validators) costs most of that budget; its route-cache entry needs only
// node:fs and a hash. Whenever the cache is not there or not right, the
// caller takes the authoritative path (`readActiveRoutes`, `projection()`). A
// contract test (test/fastpath.test.ts) keeps the two in step.

/** `resolveStateDir` of @rukh/profile: `RUKH_HOME`, else `home`, else XDG, else `~/.local/state/<brand>`. */
export function stateDirOf(
  brand: string,
  env: Readonly<Record<string, string | undefined>>,
  home: string | undefined,
): string {
  if (env.RUKH_HOME) return env.RUKH_HOME;
  if (home) return home;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, brand);
  return join(homedir(), ".local", "state", brand);
}

/**
 * The active revision's verified route cache as a lazy source (the one
 * reader, `@rukh/profile/route-cache`, which loads nothing else of the
 * profile); `undefined` when the authoritative path must decide.
 */
export function cachedRoutes(
  root: string,
): { revisionId: string; source: RouteSource } | undefined {
  const r = readRouteCache(root);
  if (!r.ok) return undefined;
  return {
    revisionId: r.revisionId,
    source: { groups: r.groups, commands: r.commands, route: (i) => r.route(i) },
  };
}
