// The one reader of a revision's route cache, the heart of the light entry
// `@rukh/profile/route-cache`: it needs nothing but node:fs and a hash, so
// listing, help and completion can use it without loading the rest of the
// profile. It checks that the active revision's bytes hash to its id and that
// the cache hashes to the digest the revision records, except for files its
// record of a whole check (_route-check.ts) shows unchanged since.

import { join } from "node:path";
import type { CliRoute, CliRouteTable } from "../model/index.js";
import { readFileAtMost, readFirstLine } from "./_bounded-reads.js";
import {
  type BucketLine,
  RouteBuckets,
  type RouteHead,
  type RouteSet,
  sha256,
} from "./_route-buckets.js";
import { RouteCheck, readStamped } from "./_route-check.js";

/**
 * Format tag of a `revisions/<id>.routes.json` file. Version 8: a header line,
 * bound to the revision by its SHA-256, then one bucket line per first word
 * of a command path or alias, each checked against the digest the header
 * records and naming the parts its own commands are in (so that a line
 * depends on its commands alone); the header keeps each word's route key.
 * Each command's full route is a line of its package's part
 * (`revisions/parts/<digest>.json`), checked against the digest its bucket
 * records. A reader hashes the header and reads the one bucket, and the one
 * part line, the typed words need.
 */
export const ROUTES_FORMAT = "rukh.cli-routes/8";

/** The digest a revision records of its route cache text: SHA-256 of the header line. */
export function routesDigestOf(text: string): string {
  return sha256(text.slice(0, text.indexOf("\n")));
}

/** Largest accepted CLI route cache (`revisions/<id>.routes.json`): 16 MiB. */
export const ROUTES_MAX_BYTES = 16_777_216;
/** Largest accepted revision file (`revisions/<id>.json`): 16 MiB. */
export const REVISION_MAX_BYTES = 16_777_216;

/**
 * What a profile revision's id is: the SHA-256 of its file, in lower-case hex.
 *
 * @example
 * REVISION_ID.test(await state.activeRevisionId() ?? ""); // true once anything was published
 */
export const REVISION_ID = /^[0-9a-f]{64}$/;

/**
 * What {@link readRouteCache} found: the verified cache (command lines parsed
 * on demand), or why there is none to use.
 *
 * @example
 * const r = readRouteCache(root);
 * if (r.ok) console.log(r.commands.length, "commands");
 */
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
      /** The development links of the revision: extension id → source directory. */
      readonly dev: ReadonlyMap<string, string>;
      /** Every first word of a command path or alias, sorted. */
      readonly words: readonly string[];
      /** The commands with a one-word path or alias, and the word whose bucket holds each. */
      readonly tops: readonly (RouteHead & { readonly word: string })[];
      /** The commands whose path or an alias starts with `word` (`undefined`: none); throws when its line fails its digest. */
      bucket(word: string): RouteSet | undefined;
      /** Every route, each checked against its digest; `undefined` if one fails. */
      routes(): readonly CliRoute[] | undefined;
      /** Every bucket's line as written, each checked against its digest (throws if one fails). */
      lines(): readonly BucketLine[];
      /**
       * Unless every file read was as checked before: checks every digest
       * of the cache and, if all hold, records its files as checked, so
       * that later reads use them without hashing (nothing is recorded
       * where the state directory cannot be written).
       */
      remember(): void;
    })
  | {
      readonly ok: false;
      /** `none`: nothing published, no cache, or a revision of an earlier version (no digest); `damaged`: do not use it. */
      readonly why: "none" | "damaged";
      readonly message: string;
    };

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
      const active = readFileAtMost(join(root, "active"), 128);
      if (active === undefined) return none("nothing is published");
      id = active === "large" ? "" : active.toString("latin1").trimEnd();
    }
    if (!REVISION_ID.test(id)) return damaged("the active file does not name a revision id");
    const check = new RouteCheck(root, id);
    const revPath = join(root, "revisions", `${id}.json`);
    const rev = readStamped(revPath, () => readFileAtMost(revPath, REVISION_MAX_BYTES));
    const revBytes = rev.value;
    if (revBytes === undefined || revBytes === "large")
      return damaged(`revision ${id} cannot be read`);
    // A revision is written as its canonical text, so its bytes hash to its
    // id; any other bytes are left to the authoritative reader.
    if (!check.known("revision", rev.stamp) && sha256(revBytes) !== id)
      return damaged(`revision ${id} does not hash to its id`);
    const revision = JSON.parse(revBytes.toString("utf8"));
    if (typeof revision.routesDigest !== "string")
      return none(`revision ${id} records no route cache digest (published by an earlier version)`);
    const file = join(root, "revisions", `${id}.routes.json`);
    // Only the header is read here; a bucket when it is asked for.
    const { value: first, stamp } = readStamped(file, () => readFirstLine(file, ROUTES_MAX_BYTES));
    if (first === undefined) return none(`revision ${id} has no route cache`);
    if (first === "large")
      return damaged(`the route cache of revision ${id} is larger than ${ROUTES_MAX_BYTES} bytes`);
    if (first === "unterminated")
      return damaged(`the route cache of revision ${id} has no header line`);
    const head = first.line;
    const earlier = /^\{"format":"rukh\.cli-routes\/[1-7]"/.test(head.toString("latin1", 0, 40));
    if (!check.known("routes", stamp) && sha256(head) !== revision.routesDigest) {
      // A cache of an earlier format is bound by another digest: not an edit, just not usable.
      if (earlier) return none(`the route cache of revision ${id} is of an earlier format`);
      return damaged(
        `the route cache of revision ${id} does not match the digest its revision records (edited or damaged)`,
      );
    }
    // Bound, but written by an earlier version: readable by that version only.
    if (earlier) return none(`the route cache of revision ${id} is of an earlier format`);
    const v = JSON.parse(head.toString("utf8"));
    const words: unknown = v?.words;
    if (
      v?.format !== ROUTES_FORMAT ||
      v.commandGeneration !== revision.commandGeneration ||
      !Array.isArray(v.groups) ||
      !Array.isArray(v.tops) ||
      !Array.isArray(words) ||
      !words.every(
        (w) =>
          Array.isArray(w) &&
          typeof w[0] === "string" &&
          Number.isSafeInteger(w[1]) &&
          w[1] >= 0 &&
          typeof w[2] === "string" &&
          typeof w[3] === "string",
      )
    )
      return damaged(`the route cache of revision ${id} is not a ${ROUTES_FORMAT} file for it`);
    const buckets = new RouteBuckets({
      root,
      id,
      file,
      headerBytes: head.length,
      words: words as [string, number, string, string][],
      check,
    });
    if (buckets.end !== first.size)
      return damaged(`the route cache of revision ${id} does not hold the lines its header names`);
    return {
      ok: true,
      revisionId: id,
      commandGeneration: revision.commandGeneration,
      dev: devLinks(revision.extensions),
      groups: v.groups,
      words: buckets.words,
      tops: v.tops,
      bucket: (word) => buckets.bucket(word),
      get commands() {
        return buckets.all().commands;
      },
      row: (i) => buckets.all().row(i),
      route: (i) => buckets.all().route(i),
      descriptor: (i) => buckets.all().descriptor(i),
      lines: () => buckets.lines(),
      remember: () => {
        if (check.whole) return;
        try {
          buckets.checkWhole();
        } catch {
          return;
        }
        check.save();
      },
      routes: () => {
        try {
          const all = buckets.all();
          return all.commands.map((_, i) => all.route(i));
        } catch {
          return undefined;
        }
      },
    };
  } catch (e) {
    return damaged(`the route cache cannot be read: ${(e as Error).message}`);
  }
}

/** The development links among a revision's extensions (a revision the reader parsed, not yet validated). */
function devLinks(extensions: unknown): ReadonlyMap<string, string> {
  const links = new Map<string, string>();
  if (Array.isArray(extensions))
    for (const e of extensions)
      if (typeof e?.dev === "string" && typeof e.id === "string") links.set(e.id, e.dev);
  return links;
}
