import { type CliRouteTable, ProfileError } from "../model/index.js";
import { ROUTES_FORMAT, readRouteCache, routeLineDigest } from "../routes/index.js";

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

/** A command the root listing shows besides groups: one with a one-word path or alias, and that word. */
export interface RouteTop {
  readonly path: readonly string[];
  readonly aliases: readonly (readonly string[])[];
  readonly summary: string;
  readonly word: string;
}

/** One bucket of a route cache: its first word, its line, the line's size and digest, and the word's route key. */
export interface RouteBucketLine {
  readonly word: string;
  readonly text: string;
  readonly bytes: number;
  readonly digest: string;
  readonly key: string;
}

/** The first words a command's path and aliases start with. */
export const firstWordsOf = (entry: RouteRow["entry"]): Set<string> =>
  new Set([entry.path[0]!, ...entry.aliases.map((a) => a[0]!)]);

/** The root listing's head of a command, if it has a one-word path or alias. */
export function topOf(r: RouteRow): RouteTop | undefined {
  const single = [r.entry.path, ...r.entry.aliases].find((p) => p.length === 1);
  return single === undefined ? undefined : { ...r.entry, word: single[0]! };
}

/**
 * The line of bucket `word`: its commands (`rows`, sorted by path), the
 * parts they are in (its own list, so that the line depends on its commands
 * alone and a publication can carry it over unchanged), each command's part
 * and line, the line's digest, and each part's SHA-256 (`partShas`).
 */
export function bucketLine(
  word: string,
  rows: readonly RouteRow[],
  partShas: ReadonlyMap<string, string>,
  key: string,
): RouteBucketLine {
  const parts: string[] = [];
  const index = new Map<string, number>();
  for (const r of rows) if (!index.has(r.part)) index.set(r.part, parts.push(r.part) - 1);
  const text = JSON.stringify({
    commands: rows.map((r) => r.entry),
    parts,
    rows: rows.map((r) => [index.get(r.part)!, r.line]),
    digests: rows.map((r) => r.digest),
    partDigests: parts.map((d, i) => [i, partShas.get(d)!]),
  });
  return { word, text, bytes: Buffer.byteLength(text), digest: routeLineDigest(text), key };
}

/**
 * The text written next to a revision, JSON lines. First a header
 * `{ format, commandGeneration, groups, words: [[word, bytes, digest, key]…], tops }`:
 * the groups; every first word of a command path or alias with the byte
 * length and digest (the first 128 bits of SHA-256) of its bucket line and
 * the word's route key (which identity each path under it names,
 * fingerprinted); and `tops`, the heads `{ path, aliases, summary, word }`
 * of the commands that have a one-word path or alias (what the root listing
 * shows besides groups), sorted by path. Then one bucket line per word, in
 * `words` order (see {@link bucketLine}). The revision records the header's
 * SHA-256 (`routesDigestOf`): a reader hashes and parses the header, then
 * the one bucket the typed words need, and reads one line of one part.
 */
export function routesFileText(
  commandGeneration: number,
  groups: CliRouteTable["groups"],
  tops: readonly RouteTop[],
  buckets: readonly RouteBucketLine[],
): string {
  const header = {
    format: ROUTES_FORMAT,
    commandGeneration,
    groups,
    words: buckets.map((b) => [b.word, b.bytes, b.digest, b.key]),
    tops,
  };
  // One join: a line with its newline each would be a string more per bucket to flatten.
  return `${[JSON.stringify(header), ...buckets.map((b) => b.text)].join("\n")}\n`;
}

/** What {@link routesFileTextOf} writes: every command's row, and the keys and digests its buckets record. */
export interface RouteRows {
  readonly commandGeneration: number;
  readonly groups: CliRouteTable["groups"];
  /** Every command, sorted by path. */
  readonly rows: readonly RouteRow[];
  /** Each part's SHA-256, by package digest. */
  readonly partShas: ReadonlyMap<string, string>;
  /** Each first word's route key. */
  readonly wordKeys: ReadonlyMap<string, string>;
}

/**
 * The route cache text of `rows` (every command, sorted by path), with the
 * parts' SHA-256 (`partShas`, by package digest) and each first word's route
 * key (`wordKeys`).
 */
export function routesFileTextOf({
  commandGeneration,
  groups,
  rows,
  partShas,
  wordKeys,
}: RouteRows): string {
  const buckets = new Map<string, RouteRow[]>();
  const tops: RouteTop[] = [];
  for (const r of rows) {
    for (const w of firstWordsOf(r.entry)) {
      const bucket = buckets.get(w);
      if (bucket === undefined) buckets.set(w, [r]);
      else bucket.push(r);
    }
    const top = topOf(r);
    if (top !== undefined) tops.push(top);
  }
  const words = [...buckets.keys()].sort();
  return routesFileText(
    commandGeneration,
    groups,
    tops,
    words.map((w) => bucketLine(w, buckets.get(w)!, partShas, wordKeys.get(w)!)),
  );
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
