// Garbage collection of a state directory: old revisions past the retention,
// and stored packages (with their parts) no kept revision uses.

import { lstat, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { REVISION_ID, routeCheckDir, routeCheckPath } from "../routes/index.js";

/** How much history {@link StateDirectory.collectGarbage} keeps. */
export interface GcOptions {
  /** The newest revisions of the active one's history that are always kept (default 20). */
  readonly keep?: number;
  /** Revisions younger than this are kept too (default 30). */
  readonly maxAgeDays?: number;
  /** Report what would go, remove nothing. */
  readonly dryRun?: boolean;
}

/**
 * What a collection removed (or, dry, would remove).
 *
 * @example
 * const r: GcReport = { revisions: ["…"], packages: ["…"], bytes: 4096, keptRevisions: 20, dryRun: false };
 */
export interface GcReport {
  readonly revisions: readonly string[];
  readonly packages: readonly string[];
  /** Bytes of the removed stored packages. */
  readonly bytes: number;
  readonly keptRevisions: number;
  readonly dryRun: boolean;
}

/** What collection needs of the state directory; it runs under the publication lock. */
export interface GcState {
  readonly root: string;
  activeRevisionId(): Promise<string | null>;
  readRevision(id: string): Promise<{
    readonly parent: string | null;
    readonly createdAt: string;
    readonly extensions: readonly { readonly digest: string }[];
  }>;
}

/** A stored package this young may belong to a publication still being committed. */
const PENDING_MS = 3_600_000;

async function sizeOf(path: string): Promise<number> {
  const st = await lstat(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const n of await readdir(path)) total += await sizeOf(join(path, n));
  return total;
}

/**
 * Decides and (unless dry) removes: revisions neither active, nor among the
 * newest `keep` of the active history, nor younger than `maxAgeDays`; then
 * stored packages no kept revision references (and their check records),
 * except ones stored within the last hour. The caller holds the publication
 * lock.
 */
export async function collect(
  state: GcState,
  options: GcOptions,
  now = Date.now(),
): Promise<GcReport> {
  const keep = options.keep ?? 20;
  const maxAgeMs = (options.maxAgeDays ?? 30) * 86_400_000;
  const revDir = join(state.root, "revisions");
  const ids = (await readdir(revDir).catch(() => [] as string[]))
    .filter((n) => n.endsWith(".json"))
    .map((n) => n.slice(0, -".json".length))
    .filter((id) => REVISION_ID.test(id));
  const kept = new Set<string>();
  // The active history, newest first, as far as it is kept.
  let id = await state.activeRevisionId();
  for (let n = 0; id !== null && n < keep; n++) {
    kept.add(id);
    id = (await state.readRevision(id).catch(() => null))?.parent ?? null;
  }
  const drop: string[] = [];
  for (const rid of ids) {
    if (kept.has(rid)) continue;
    const rev = await state.readRevision(rid).catch(() => null);
    const age = rev === null ? Number.POSITIVE_INFINITY : now - Date.parse(rev.createdAt);
    if (age < maxAgeMs) kept.add(rid);
    else drop.push(rid);
  }
  const used = new Set<string>();
  for (const rid of kept)
    for (const e of (await state.readRevision(rid).catch(() => null))?.extensions ?? [])
      used.add(e.digest);
  const storeDir = join(state.root, "store");
  const unused: string[] = [];
  let bytes = 0;
  for (const digest of await readdir(storeDir).catch(() => [] as string[])) {
    if (used.has(digest)) continue;
    const st = await stat(join(storeDir, digest)).catch(() => null);
    if (st === null || now - st.mtimeMs < PENDING_MS) continue;
    unused.push(digest);
    bytes += await sizeOf(join(storeDir, digest));
  }
  if (options.dryRun !== true) {
    // Revisions first: no kept revision references a package removed after them.
    for (const rid of drop) {
      await rm(join(revDir, `${rid}.routes.json`), { force: true });
      await rm(join(revDir, `${rid}.catalog.json`), { force: true });
      await rm(join(revDir, `${rid}.json`), { force: true });
      await rm(routeCheckPath(state.root, rid), { force: true });
    }
    // And a record's temporary file a killed writer left (`<id>.json.<pid>.tmp`).
    const records = routeCheckDir(state.root);
    const dropped = new Set(drop);
    for (const name of await readdir(records).catch(() => [] as string[]))
      if (name.endsWith(".tmp") && dropped.has(name.split(".", 1)[0]!))
        await rm(join(records, name), { force: true });
    for (const digest of unused) {
      await rm(join(state.root, "cache", "store", `${digest}.json`), { force: true });
      await rm(join(revDir, "parts", `${digest}.json`), { force: true });
      await rm(join(storeDir, digest), { recursive: true, force: true });
    }
    // A part whose package is gone (its removal interrupted) goes too.
    const partsDir = join(revDir, "parts");
    for (const name of await readdir(partsDir).catch(() => [] as string[])) {
      const digest = name.slice(0, -".json".length);
      if (used.has(digest)) continue;
      if ((await stat(join(storeDir, digest)).catch(() => null)) !== null) continue;
      await rm(join(partsDir, name), { force: true });
    }
  }
  return {
    revisions: drop.sort(),
    packages: unused.sort(),
    bytes,
    keptRevisions: kept.size,
    dryRun: options.dryRun === true,
  };
}
