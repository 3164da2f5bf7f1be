// The one reader of a revision's route cache, importable on its own
// (`@rukh/profile/route-cache`): it needs nothing but node:fs and a hash, so
// listing, help and completion can use it without loading the rest of the
// profile. It checks that the active revision's bytes hash to its id and that
// the cache hashes to the digest the revision records.

import { createHash } from "node:crypto";
import { join } from "node:path";
import { readBounded, readFirstLine, readRange } from "./_bounded.js";
import type { CliRoute, CliRouteTable } from "./_projection.js";

/**
 * Format tag of a `revisions/<id>.routes.json` file. The revision records
 * the SHA-256 of the header line, and the header a digest of every command
 * line, so a reader hashes the header and the one line it uses; version 4
 * adds `body`, the SHA-256 of all the lines, for a reader of every line (the
 * next publication).
 */
export const ROUTES_FORMAT = "rukh.cli-routes/4";

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
      /** The line of `commands[i]` as written, checked against its digest, and the digest. */
      line(i: number): { readonly text: string; readonly digest: string };
      /** Every line as written with its digest, all checked at once; `undefined` if they fail the check. */
      lines(): readonly { readonly text: string; readonly digest: string }[] | undefined;
    }
  | {
      readonly ok: false;
      /** `none`: nothing published, no cache, or a revision of an earlier version (no digest); `damaged`: do not use it. */
      readonly why: "none" | "damaged";
      readonly message: string;
    };

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

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
    // Only the header is read here; a line when it is asked for.
    const first = readFirstLine(file, ROUTES_MAX_BYTES);
    if (first === undefined) return none(`revision ${id} has no route cache`);
    if (first === "large")
      return damaged(`the route cache of revision ${id} is larger than ${ROUTES_MAX_BYTES} bytes`);
    if (first === "unterminated")
      return damaged(`the route cache of revision ${id} has no header line`);
    const head = first.line;
    const nl = head.length;
    const earlier = /^\{"format":"rukh\.cli-routes\/[123]"/.test(head.toString("latin1", 0, 40));
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
    const sizes: unknown = v?.sizes;
    const digests: unknown = v?.digests;
    if (
      v?.format !== ROUTES_FORMAT ||
      v.commandGeneration !== revision.commandGeneration ||
      !Array.isArray(v.groups) ||
      !Array.isArray(v.commands) ||
      !Array.isArray(sizes) ||
      !Array.isArray(digests) ||
      typeof v.body !== "string" ||
      sizes.length !== v.commands.length ||
      digests.length !== v.commands.length
    )
      return damaged(`the route cache of revision ${id} is not a ${ROUTES_FORMAT} file for it`);
    const starts: number[] = [];
    let at = nl + 1;
    for (const n of sizes as number[]) {
      starts.push(at);
      at += n + 1;
    }
    if (at !== first.size)
      return damaged(`the route cache of revision ${id} does not hold the lines its header names`);
    const line = (i: number) => {
      const size = (sizes as number[])[i]!;
      const text = readRange(file, starts[i]!, size);
      const digest = (digests as string[])[i]!;
      if (routeLineDigest(text) !== digest)
        throw new Error(
          `line ${i + 1} of the route cache of revision ${id} does not match its digest (edited or damaged)`,
        );
      return { text: text.toString("utf8"), digest };
    };
    return {
      ok: true,
      revisionId: id,
      commandGeneration: revision.commandGeneration,
      groups: v.groups,
      commands: v.commands,
      route: (i) => JSON.parse(line(i).text) as CliRoute,
      line,
      lines: () => {
        const body = readRange(file, nl + 1, first.size - nl - 1);
        if (body.length !== first.size - nl - 1 || sha256(body) !== v.body) return undefined;
        return starts.map((start, i) => ({
          text: body.toString("utf8", start - nl - 1, start - nl - 1 + (sizes as number[])[i]!),
          digest: (digests as string[])[i]!,
        }));
      },
    };
  } catch (e) {
    return damaged(`the route cache cannot be read: ${(e as Error).message}`);
  }
}
