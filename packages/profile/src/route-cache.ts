// The one reader of a revision's route cache, importable on its own
// (`@rukh/profile/route-cache`): it needs nothing but node:fs and a hash, so
// listing, help and completion can use it without loading the rest of the
// profile. It checks that the active revision's bytes hash to its id and that
// the cache hashes to the digest the revision records.

import * as crypto from "node:crypto";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readBounded } from "./_bounded.js";
import type { CliRoute, CliRouteTable } from "./_projection.js";

/**
 * Format tag of a `revisions/<id>.routes.json` file. Version 5: the file is
 * one header line, bound to the revision by its SHA-256; each command's full
 * route is a line of its package's part (`revisions/parts/<digest>.json`),
 * checked against the digest the header records for it. A reader hashes the
 * header and reads the one part (and line) it uses.
 */
export const ROUTES_FORMAT = "rukh.cli-routes/5";

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
export type RouteCacheRead =
  | {
      readonly ok: true;
      readonly revisionId: string;
      readonly commandGeneration: number;
      readonly groups: CliRouteTable["groups"];
      /** Path, aliases and summary of each command, in order. */
      readonly commands: readonly {
        readonly path: readonly string[];
        readonly aliases: readonly (readonly string[])[];
        readonly summary: string;
      }[];
      /** The full route of `commands[i]`. */
      route(i: number): CliRoute;
      /** Where `commands[i]`'s route is: its package's digest, the line of its part, and the line's digest. */
      row(i: number): { readonly part: string; readonly line: number; readonly digest: string };
      /** Every route, each checked against its digest; `undefined` if one fails. */
      routes(): readonly CliRoute[] | undefined;
    }
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
    const bytes = readBounded(file, ROUTES_MAX_BYTES);
    if (bytes === undefined) return none(`revision ${id} has no route cache`);
    if (bytes === "large")
      return damaged(`the route cache of revision ${id} is larger than ${ROUTES_MAX_BYTES} bytes`);
    const nl = bytes.indexOf(10);
    if (nl === -1) return damaged(`the route cache of revision ${id} has no header line`);
    const head = bytes.subarray(0, nl);
    const earlier = /^\{"format":"rukh\.cli-routes\/[1234]"/.test(head.toString("latin1", 0, 40));
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
    const rows: unknown = v?.rows;
    const parts: unknown = v?.parts;
    const digests: unknown = v?.digests;
    if (
      nl !== bytes.length - 1 ||
      v?.format !== ROUTES_FORMAT ||
      v.commandGeneration !== revision.commandGeneration ||
      !Array.isArray(v.groups) ||
      !Array.isArray(v.commands) ||
      !Array.isArray(rows) ||
      !Array.isArray(parts) ||
      !Array.isArray(digests) ||
      rows.length !== v.commands.length ||
      digests.length !== v.commands.length ||
      !parts.every((d) => typeof d === "string" && REVISION_ID.test(d)) ||
      !rows.every(
        (r) =>
          Array.isArray(r) &&
          Number.isSafeInteger(r[0]) &&
          r[0] >= 0 &&
          r[0] < parts.length &&
          Number.isSafeInteger(r[1]) &&
          r[1] >= 1,
      )
    )
      return damaged(`the route cache of revision ${id} is not a ${ROUTES_FORMAT} file for it`);
    const row = (i: number) => {
      const [p, line] = (rows as [number, number][])[i]!;
      return { part: (parts as string[])[p]!, line, digest: (digests as string[])[i]! };
    };
    const readPart = (digest: string): Buffer => {
      const b = readBounded(partPath(root, digest), PART_MAX_BYTES);
      if (b === undefined || b === "large")
        throw new Error(`the part of package ${digest} is missing or too large`);
      return b;
    };
    const routeIn = (part: Buffer, i: number): CliRoute => {
      const r = row(i);
      const line = partLine(part, r.line);
      if (line === undefined || routeLineDigest(line) !== r.digest)
        throw new Error(
          `the route of command ${i + 1} of the route cache of revision ${id} does not match its digest (edited or damaged)`,
        );
      return JSON.parse(line.toString("utf8")) as CliRoute;
    };
    return {
      ok: true,
      revisionId: id,
      commandGeneration: revision.commandGeneration,
      groups: v.groups,
      commands: v.commands,
      route: (i) => routeIn(readPart(row(i).part), i),
      row,
      routes: () => {
        const read = new Map<string, Buffer>();
        try {
          return (v.commands as unknown[]).map((_, i) => {
            const digest = row(i).part;
            let part = read.get(digest);
            if (part === undefined) {
              part = readPart(digest);
              read.set(digest, part);
            }
            return routeIn(part, i);
          });
        } catch {
          return undefined;
        }
      },
    };
  } catch (e) {
    return damaged(`the route cache cannot be read: ${(e as Error).message}`);
  }
}
