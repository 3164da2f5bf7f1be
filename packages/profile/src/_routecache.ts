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
  /** The development links of the revision: extension id → source directory. */
  readonly dev: ReadonlyMap<string, string>;
}

/** One command of a route cache: its header entry, where its route is (package part and line) and the line's digest. */
export interface RouteRow {
  readonly entry: {
    readonly path: readonly string[];
    readonly aliases: readonly (readonly string[])[];
    readonly summary: string;
  };
  readonly part: string;
  readonly line: number;
  readonly digest: string;
}

/**
 * The text written next to a revision, JSON lines. First a header
 * `{ format, commandGeneration, groups, parts, words: [[word, bytes, digest]…], tops }`:
 * the groups; the package digests whose parts hold the routes; every first
 * word of a command path or alias with the byte length and digest (the first
 * 128 bits of SHA-256) of its bucket line; and `tops`, the heads
 * `{ path, aliases, summary, word }` of the commands that have a one-word path
 * or alias (what the root listing shows besides groups). Then one bucket line
 * per word, in `words` order: `{ commands: [{ path, aliases, summary }], rows,
 * digests, partDigests }` for every command whose path or an alias starts
 * with the word, sorted by path — `rows[i]` is `[index into parts, line of
 * that part]` for `commands[i]` and `digests[i]` that line's digest;
 * `partDigests` holds `[index into parts, SHA-256 of the whole part]` for
 * each part the bucket names, so a run can take its validated descriptor
 * (the part's first line) instead of validating the package's again. The
 * revision records the header's SHA-256 (`routesDigestOf`): a reader hashes
 * and parses the header, then the one bucket the typed words need, and reads
 * one line of one part. `partShas` maps each package digest to its part's
 * SHA-256.
 */
export function routesFileTextOf(
  commandGeneration: number,
  groups: CliRouteTable["groups"],
  rows: readonly RouteRow[],
  partShas: ReadonlyMap<string, string>,
): string {
  const parts: string[] = [];
  const index = new Map<string, number>();
  const at = (digest: string) => {
    let i = index.get(digest);
    if (i === undefined) {
      i = parts.push(digest) - 1;
      index.set(digest, i);
    }
    return i;
  };
  const buckets = new Map<string, RouteRow[]>();
  const tops: {
    path: readonly string[];
    aliases: readonly (readonly string[])[];
    summary: string;
    word: string;
  }[] = [];
  for (const r of rows) {
    const firsts = new Set([r.entry.path[0]!, ...r.entry.aliases.map((a) => a[0]!)]);
    for (const w of firsts) {
      const bucket = buckets.get(w);
      if (bucket === undefined) buckets.set(w, [r]);
      else bucket.push(r);
    }
    const single = [r.entry.path, ...r.entry.aliases].find((p) => p.length === 1);
    if (single !== undefined) tops.push({ ...r.entry, word: single[0]! });
  }
  const words = [...buckets.keys()].sort();
  const lines = words.map((w) => {
    const bucket = buckets.get(w)!;
    const named = [...new Set(bucket.map((r) => r.part))];
    return JSON.stringify({
      commands: bucket.map((r) => r.entry),
      rows: bucket.map((r) => [at(r.part), r.line]),
      digests: bucket.map((r) => r.digest),
      partDigests: named.map((d) => [at(d), partShas.get(d)!]),
    });
  });
  const header = {
    format: ROUTES_FORMAT,
    commandGeneration,
    groups,
    parts,
    words: words.map((w, i) => [w, Buffer.byteLength(lines[i]!), routeLineDigest(lines[i]!)]),
    tops,
  };
  return [JSON.stringify(header), ...lines].map((l) => `${l}\n`).join("");
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
    commands = r.routes() ?? r.commands.map((_, i) => r.route(i));
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
    dev: r.dev,
  };
}

/**
 * Revision `id`'s route table from its route cache, every route checked
 * against the digest the header records (the header is bound to the
 * revision); `undefined` when the cache cannot be used.
 */
export function cachedRoutes(root: string, id: string): CliRouteTable | undefined {
  const r = readRouteCache(root, id);
  const commands = r.ok ? r.routes() : undefined;
  return !r.ok || commands === undefined ? undefined : { commands, groups: r.groups };
}
