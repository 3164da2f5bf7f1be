import { sha256Hex } from "@rukh/json";
import { ProfileError } from "./_errors.js";
import type { CliRoute, CliRouteTable } from "./_projection.js";
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

/** One command of a route cache: its header entry, its line and the line's digest. */
export interface RouteRow {
  readonly entry: {
    readonly path: readonly string[];
    readonly aliases: readonly (readonly string[])[];
    readonly summary: string;
  };
  readonly line: string;
  readonly digest: string;
}

/** The route cache row of one command's route. */
export function routeRow(route: CliRoute): RouteRow {
  const line = JSON.stringify(route);
  return {
    entry: { path: route.path, aliases: route.aliases, summary: route.cli.summary },
    line,
    digest: routeLineDigest(line),
  };
}

/**
 * The text written next to a revision, JSON lines: first a header
 * `{ format, commandGeneration, groups, commands: [{ path, aliases, summary }], sizes, digests }`
 * (enough to list, route and complete command paths; `sizes` are the UTF-8
 * byte lengths of the command lines, `digests` their digests and `body` the
 * SHA-256 of all of them), then one
 * line per command with its full `CliRoute`, in header order (`rows` sorted
 * by path). The revision records the header's SHA-256 (`routesDigestOf`): a
 * reader that only lists or routes hashes and parses the header, and checks
 * at most one line.
 */
export function routesFileTextOf(
  commandGeneration: number,
  groups: CliRouteTable["groups"],
  rows: readonly RouteRow[],
): string {
  const body = rows.map((r) => `${r.line}\n`).join("");
  const header = {
    format: ROUTES_FORMAT,
    commandGeneration,
    groups,
    commands: rows.map((r) => r.entry),
    sizes: rows.map((r) => Buffer.byteLength(r.line)),
    digests: rows.map((r) => r.digest),
    body: sha256Hex(body),
  };
  return `${JSON.stringify(header)}\n${body}`;
}

/** The route cache text of a route table. */
export function routesFileText(commandGeneration: number, routes: CliRouteTable): string {
  return routesFileTextOf(commandGeneration, routes.groups, routes.commands.map(routeRow));
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

/**
 * Revision `id`'s route table from its route cache, every line checked at
 * once against the digest the header records (the header is bound to the
 * revision); `undefined` when the cache cannot be used.
 */
export function cachedRoutes(root: string, id: string): CliRouteTable | undefined {
  const r = readRouteCache(root, id);
  const lines = r.ok ? r.lines() : undefined;
  if (!r.ok || lines === undefined) return undefined;
  try {
    return { commands: lines.map((l) => JSON.parse(l.text) as CliRoute), groups: r.groups };
  } catch {
    return undefined;
  }
}
