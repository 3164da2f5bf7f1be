// Checking, and on request rewriting, the caches a revision is read through
// (the route cache, the catalog, the parts) against what its packages say.
import { mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ioError } from "../model/index.js";
import { routesDigestOf } from "../routes/index.js";
import { assertWritable } from "../state-dir/index.js";
import { type LockOptions, publicationLock, writeAtomic } from "./_commit.js";
import { derive } from "./_derive.js";
import type { PublishedRevisions } from "./_published-revisions.js";
import type { RevisionProjections } from "./_revision-projections.js";

/** What {@link checkRouteCache} found, or that it rewrote what differed. */
export type RouteCacheState = "matches" | "differs" | "missing" | "rewritten" | "unbound";

/** Where {@link checkRouteCache} reads and, with `repair`, writes. */
export interface RouteCacheCheck {
  readonly lock: LockOptions;
  readonly revisions: PublishedRevisions;
  readonly projections: RevisionProjections;
  readonly repair: boolean;
}

function errno(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

/**
 * Whether the active revision's route cache and catalog say exactly what
 * its packages in the store say, each verified against its digest (see
 * `StateDirectory.checkRouteCache`).
 */
export async function checkRouteCache(check: RouteCacheCheck): Promise<RouteCacheState> {
  const { root } = check.lock;
  const id = check.revisions.active();
  if (id === null) return "matches";
  const revision = check.revisions.read(id);
  // A revision of an earlier version records no digest: no cache of it is trusted.
  if (revision.routesDigest === undefined) return "unbound";
  const loaded = await check.projections.loaded(revision.extensions);
  const derived = derive(revision.config, revision.extensions, loaded);
  const routesText = derived.routesText(revision.commandGeneration);
  // Bound to a cache of an earlier format: nothing written now could match it.
  if (routesDigestOf(routesText) !== revision.routesDigest) return "unbound";
  const wanted: [string, string][] = [[`${id}.routes.json`, routesText]];
  if (revision.catalogDigest !== undefined)
    wanted.push([`${id}.catalog.json`, derived.catalogText]);
  for (const part of derived.parts) wanted.push([`parts/${part.digest}.json`, part.text]);
  const states: ("matches" | "differs" | "missing")[] = [];
  for (const [name, want] of wanted) {
    let have: string | undefined;
    try {
      have = await readFile(join(root, "revisions", name), "utf8");
    } catch (e) {
      if (errno(e) !== "ENOENT") throw ioError(`cannot read ${name}`, e);
    }
    states.push(have === undefined ? "missing" : have === want ? "matches" : "differs");
  }
  const state = states.includes("differs")
    ? "differs"
    : states.includes("missing")
      ? "missing"
      : "matches";
  if (state === "matches" || !check.repair) return state;
  await assertWritable(root);
  const release = await publicationLock(check.lock);
  try {
    await mkdir(join(root, "tmp"), { recursive: true });
    await mkdir(join(root, "revisions", "parts"), { recursive: true });
    for (const [i, [name, want]] of wanted.entries())
      if (states[i] !== "matches") {
        const at = join(root, "revisions", name);
        await writeAtomic(root, { dir: dirname(at), name: basename(at) }, want);
      }
  } finally {
    await release();
  }
  return "rewritten";
}
