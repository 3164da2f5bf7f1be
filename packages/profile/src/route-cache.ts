// The one reader of a revision's route cache, importable on its own
// (`@rukh/profile/route-cache`): it needs nothing but node:fs and a hash, so
// listing, help and completion can use it without loading the rest of the
// profile. It checks that the active revision's bytes hash to its id and that
// the cache hashes to the digest the revision records.

import * as crypto from "node:crypto";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readBounded, readFirstLine, readRange } from "./_bounded.js";
import type { CliRoute, CliRouteTable } from "./_projection.js";

/**
 * Format tag of a `revisions/<id>.routes.json` file. Version 6: a header line,
 * bound to the revision by its SHA-256, then one bucket line per first word
 * of a command path or alias, each checked against the digest the header
 * records; each command's full route is a line of its package's part
 * (`revisions/parts/<digest>.json`), checked against the digest its bucket
 * records. A reader hashes the header and reads the one bucket, and the one
 * part line, the typed words need.
 */
export const ROUTES_FORMAT = "rukh.cli-routes/6";

/** Where the part of a package (by digest) lives: its descriptor and command routes, one per line. */
export function partPath(root: string, digest: string): string {
  return join(root, "revisions", "parts", `${digest}.json`);
}

/** The largest part read (16 MiB). */
export const PART_MAX_BYTES = 16_777_216;

/** Line `n` (from 0) of a part's bytes, or `undefined` if it has fewer lines. */
export function partLine(bytes: Buffer, n: number): Buffer | undefined {
  let start = 0;
  for (let i = 0; i < n; i++) {
    const nl = bytes.indexOf(10, start);
    if (nl === -1) return undefined;
    start = nl + 1;
  }
  const end = bytes.indexOf(10, start);
  return end === -1 ? undefined : bytes.subarray(start, end);
}

/** The digest a revision records of its route cache text: SHA-256 of the header line. */
export function routesDigestOf(text: string): string {
  return sha256(text.slice(0, text.indexOf("\n")));
}

/** The digest the header records of one command line: the first 128 bits of its SHA-256, hex. */
export function routeLineDigest(line: string | Buffer): string {
  return sha256(line).slice(0, 32);
}

/** The largest route cache read (16 MiB; `ROUTES_MAX_BYTES` of the package). */
const ROUTES_MAX_BYTES = 16_777_216;

const REVISION_ID = /^[0-9a-f]{64}$/;
const REVISION_MAX_BYTES = 16_777_216;

/**
 * What {@link readRouteCache} found: the verified cache (command lines parsed
 * on demand), or why there is none to use.
 *
 * @example
 * const r = readRouteCache(root);
 * if (r.ok) console.log(r.commands.length, "commands");
 */
/** Path, aliases and summary of a command: enough to list, route and complete it. */
export interface RouteHead {
  readonly path: readonly string[];
  readonly aliases: readonly (readonly string[])[];
  readonly summary: string;
}

/** Commands of a route cache with their routes read on demand: one bucket, or all of them. */
export interface RouteSet {
  /** Each command's head, sorted by path. */
  readonly commands: readonly RouteHead[];
  /** The full route of `commands[i]` (read from its package's part, checked against its digest). */
  route(i: number): CliRoute;
  /** Where `commands[i]`'s route is: its package's digest, the line of its part, and the line's digest. */
  row(i: number): { readonly part: string; readonly line: number; readonly digest: string };
}

/**
 * What {@link readRouteCache} found: the verified cache (buckets and routes
 * read on demand), or why there is none to use.
 *
 * @example
 * const r = readRouteCache(root);
 * if (r.ok) console.log(r.words.length, "first words");
 */
export type RouteCacheRead =
  | (RouteSet & {
      readonly ok: true;
      readonly revisionId: string;
      readonly commandGeneration: number;
      readonly groups: CliRouteTable["groups"];
      /** Every first word of a command path or alias, sorted. */
      readonly words: readonly string[];
      /** The commands with a one-word path or alias, and the word whose bucket holds each. */
      readonly tops: readonly (RouteHead & { readonly word: string })[];
      /** The commands whose path or an alias starts with `word` (`undefined`: none); throws when its line fails its digest. */
      bucket(word: string): RouteSet | undefined;
      /** Every route, each checked against its digest; `undefined` if one fails. */
      routes(): readonly CliRoute[] | undefined;
    })
  | {
      readonly ok: false;
      /** `none`: nothing published, no cache, or a revision of an earlier version (no digest); `damaged`: do not use it. */
      readonly why: "none" | "damaged";
      readonly message: string;
    };

// Node's one-shot hash where it exists (20.12 and later): no Hash object per line.
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Buffer) => string }).hash;
const sha256 = (data: string | Buffer) =>
  oneShot !== undefined ? oneShot("sha256", data) : createHash("sha256").update(data).digest("hex");

/**
 * Reads `active`, its revision and `revisions/<id>.routes.json` with
 * synchronous calls, and uses the cache only if the revision hashes to its
 * id and records the cache's SHA-256. Only the header is parsed; a command's
 * line when it is asked for. With `revisionId`, reads that revision's cache
 * instead of the active one's.
 *
 * @example
 * const r = readRouteCache(resolveStateDir({ brand: "acme" }));
 */
export function readRouteCache(root: string, revisionId?: string): RouteCacheRead {
  const none = (message: string) => ({ ok: false, why: "none", message }) as const;
  const damaged = (message: string) => ({ ok: false, why: "damaged", message }) as const;
  try {
    let id = revisionId;
    if (id === undefined) {
      const active = readBounded(join(root, "active"), 128);
      if (active === undefined) return none("nothing is published");
      id = active === "large" ? "" : active.toString("latin1").trimEnd();
    }
    if (!REVISION_ID.test(id)) return damaged("the active file does not name a revision id");
    const revBytes = readBounded(join(root, "revisions", `${id}.json`), REVISION_MAX_BYTES);
    if (revBytes === undefined || revBytes === "large")
      return damaged(`revision ${id} cannot be read`);
    // A revision is written as its canonical text, so its bytes hash to its
    // id; any other bytes are left to the authoritative reader.
    if (sha256(revBytes) !== id) return damaged(`revision ${id} does not hash to its id`);
    const revision = JSON.parse(revBytes.toString("utf8"));
    if (typeof revision.routesDigest !== "string")
      return none(`revision ${id} records no route cache digest (published by an earlier version)`);
    const file = join(root, "revisions", `${id}.routes.json`);
    // Only the header is read here; a bucket when it is asked for.
    const first = readFirstLine(file, ROUTES_MAX_BYTES);
    if (first === undefined) return none(`revision ${id} has no route cache`);
    if (first === "large")
      return damaged(`the route cache of revision ${id} is larger than ${ROUTES_MAX_BYTES} bytes`);
    if (first === "unterminated")
      return damaged(`the route cache of revision ${id} has no header line`);
    const head = first.line;
    const earlier = /^\{"format":"rukh\.cli-routes\/[1-5]"/.test(head.toString("latin1", 0, 40));
    if (sha256(head) !== revision.routesDigest) {
      // A cache of an earlier format is bound by another digest: not an edit, just not usable.
      if (earlier) return none(`the route cache of revision ${id} is of an earlier format`);
      return damaged(
        `the route cache of revision ${id} does not match the digest its revision records (edited or damaged)`,
      );
    }
    // Bound, but written by an earlier version: readable by that version only.
    if (earlier) return none(`the route cache of revision ${id} is of an earlier format`);
    const v = JSON.parse(head.toString("utf8"));
    const parts: unknown = v?.parts;
    const words: unknown = v?.words;
    if (
      v?.format !== ROUTES_FORMAT ||
      v.commandGeneration !== revision.commandGeneration ||
      !Array.isArray(v.groups) ||
      !Array.isArray(v.tops) ||
      !Array.isArray(parts) ||
      !parts.every((d) => typeof d === "string" && REVISION_ID.test(d)) ||
      !Array.isArray(words) ||
      !words.every(
        (w) =>
          Array.isArray(w) &&
          typeof w[0] === "string" &&
          Number.isSafeInteger(w[1]) &&
          w[1] >= 0 &&
          typeof w[2] === "string",
      )
    )
      return damaged(`the route cache of revision ${id} is not a ${ROUTES_FORMAT} file for it`);
    const at = new Map<string, [start: number, size: number, digest: string]>();
    let offset = head.length + 1;
    for (const [w, size, digest] of words as [string, number, string][]) {
      at.set(w, [offset, size, digest]);
      offset += size + 1;
    }
    if (offset !== first.size)
      return damaged(`the route cache of revision ${id} does not hold the lines its header names`);
    const partsRead = new Map<string, Buffer>();
    const readPart = (digest: string): Buffer => {
      let b = partsRead.get(digest);
      if (b === undefined) {
        const read = readBounded(partPath(root, digest), PART_MAX_BYTES);
        if (read === undefined || read === "large")
          throw new Error(`the part of package ${digest} is missing or too large`);
        b = read;
        partsRead.set(digest, b);
      }
      return b;
    };
    const set = (
      commands: readonly RouteHead[],
      rows: readonly [number, number][],
      digests: readonly string[],
    ): RouteSet => {
      const row = (i: number) => {
        const [p, line] = rows[i]!;
        return { part: (parts as string[])[p]!, line, digest: digests[i]! };
      };
      return {
        commands,
        row,
        route: (i) => {
          const r = row(i);
          const line = partLine(readPart(r.part), r.line);
          if (line === undefined || routeLineDigest(line) !== r.digest)
            throw new Error(
              `the route of ${commands[i]!.path.join(" ")} in the route cache of revision ${id} does not match its digest (edited or damaged)`,
            );
          return JSON.parse(line.toString("utf8")) as CliRoute;
        },
      };
    };
    const buckets = new Map<string, RouteSet>();
    const bucket = (word: string): RouteSet | undefined => {
      const where = at.get(word);
      if (where === undefined) return undefined;
      let b = buckets.get(word);
      if (b === undefined) {
        const [start, size, digest] = where;
        const line = readRange(file, start, size);
        if (line.length !== size || routeLineDigest(line) !== digest)
          throw new Error(
            `the commands under "${word}" in the route cache of revision ${id} do not match their digest (edited or damaged)`,
          );
        const x = JSON.parse(line.toString("utf8"));
        if (
          !Array.isArray(x?.commands) ||
          !Array.isArray(x.rows) ||
          !Array.isArray(x.digests) ||
          x.rows.length !== x.commands.length ||
          x.digests.length !== x.commands.length ||
          !x.rows.every(
            (r: unknown) =>
              Array.isArray(r) &&
              Number.isSafeInteger(r[0]) &&
              r[0] >= 0 &&
              r[0] < (parts as string[]).length &&
              Number.isSafeInteger(r[1]) &&
              r[1] >= 1,
          )
        )
          throw new Error(
            `the commands under "${word}" in the route cache of revision ${id} are malformed`,
          );
        b = set(x.commands, x.rows, x.digests);
        buckets.set(word, b);
      }
      return b;
    };
    // Every command once, sorted by path: the buckets merged.
    let all: RouteSet | undefined;
    const every = (): RouteSet => {
      if (all !== undefined) return all;
      const seen = new Map<string, [RouteSet, number]>();
      for (const [w] of words as [string][]) {
        const b = bucket(w)!;
        b.commands.forEach((c, i) => {
          const k = c.path.join(" ");
          if (!seen.has(k)) seen.set(k, [b, i]);
        });
      }
      const sorted = [...seen].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, x]) => x);
      all = {
        commands: sorted.map(([b, i]) => b.commands[i]!),
        row: (i) => sorted[i]![0].row(sorted[i]![1]),
        route: (i) => sorted[i]![0].route(sorted[i]![1]),
      };
      return all;
    };
    return {
      ok: true,
      revisionId: id,
      commandGeneration: revision.commandGeneration,
      groups: v.groups,
      words: (words as [string][]).map(([w]) => w),
      tops: v.tops,
      bucket,
      get commands() {
        return every().commands;
      },
      row: (i) => every().row(i),
      route: (i) => every().route(i),
      routes: () => {
        try {
          const e = every();
          return e.commands.map((_, i) => e.route(i));
        } catch {
          return undefined;
        }
      },
    };
  } catch (e) {
    return damaged(`the route cache cannot be read: ${(e as Error).message}`);
  }
}
