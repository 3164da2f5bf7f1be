import { ProfileError } from "./_errors.js";
import type { CliRouteTable } from "./_projection.js";
import { ROUTES_FORMAT, readRouteCache, routeLineDigest } from "./route-cache.js";

export { ROUTES_FORMAT };

/**
 * The CLI route table of the active revision as cached at publication, read
 * without verifying any package (the core verifies at invoke time).
 *
 * @example
 * const active = await readActiveRoutes(root);
 * if (active !== null) for (const r of active.routes.commands) console.log(r.path.join(" "));
 */
export interface ActiveRoutes {
  readonly revisionId: string;
  readonly commandGeneration: number;
  readonly routes: CliRouteTable;
}

/**
 * The text written next to a revision, JSON lines: first a header
 * `{ format, commandGeneration, groups, commands: [{ path, aliases, summary }], sizes, digests }`
 * (enough to list, route and complete command paths; `sizes` are the UTF-8
 * byte lengths of the command lines and `digests` their digests), then one
 * line per command with its full `CliRoute`, in header order. The revision
 * records the header's SHA-256 (`routesDigestOf`): a reader that only lists
 * or routes hashes and parses the header, and checks at most one line.
 */
export function routesFileText(commandGeneration: number, routes: CliRouteTable): string {
  const lines = routes.commands.map((c) => JSON.stringify(c));
  const header = {
    format: ROUTES_FORMAT,
    commandGeneration,
    groups: routes.groups,
    commands: routes.commands.map((c) => ({
      path: c.path,
      aliases: c.aliases,
      summary: c.cli.summary,
    })),
    sizes: lines.map((l) => Buffer.byteLength(l)),
    digests: lines.map(routeLineDigest),
  };
  return `${[JSON.stringify(header), ...lines].join("\n")}\n`;
}

/**
 * Reads `active`, its revision and `revisions/<id>.routes.json` only: the
 * fast path for listing, help and completion, which must never load
 * extension code or re-verify the store. The cache is used only if the
 * revision hashes to its id and records the cache's SHA-256 (see
 * `readRouteCache`, the one reader). Returns `null` before the first
 * publication, for a revision without a cache and for one of an earlier
 * version (fall back to `StateDirectory.projection()`); a damaged or edited
 * cache fails with `invalid_state`.
 *
 * @example
 * const active = await readActiveRoutes(resolveStateDir({ brand: "acme" }));
 */
export async function readActiveRoutes(root: string): Promise<ActiveRoutes | null> {
  const r = readRouteCache(root);
  if (!r.ok) {
    if (r.why === "none") return null;
    throw new ProfileError("invalid_state", r.message);
  }
  let commands: CliRouteTable["commands"];
  try {
    commands = r.commands.map((_, i) => r.route(i));
  } catch (cause) {
    throw new ProfileError(
      "invalid_state",
      `the route cache of revision ${r.revisionId} cannot be read: ${(cause as Error).message}`,
      { cause },
    );
  }
  if (commands.some((c) => typeof c !== "object" || c === null || !Array.isArray(c.path)))
    throw new ProfileError(
      "invalid_state",
      `the route cache of revision ${r.revisionId} is not a ${ROUTES_FORMAT} file for that revision`,
    );
  return {
    revisionId: r.revisionId,
    commandGeneration: r.commandGeneration,
    routes: { commands, groups: r.groups },
  };
}
