// Committing a publication: the publication lock, atomic writes, and the
// order in which a revision's files land so that a reader who sees the new
// `active` always finds everything it names.
import { randomBytes } from "node:crypto";
import { mkdir, realpath, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ioError, ProfileError } from "../model/index.js";
import { PART_MAX_BYTES, partPath, readFileAtMost, readStamped, stampOf } from "../routes/index.js";
import {
  fsyncDir,
  type LockMechanism,
  stateLocks,
  temporaryName,
  writeDurable,
} from "../state-dir/index.js";
import type { Part } from "./_parts.js";

/** How a state directory's publication lock is taken. */
export interface LockOptions {
  readonly root: string;
  readonly locks: LockMechanism;
  /** How long to wait for another publisher. */
  readonly timeoutMs: number;
}

/** Releases a held publication lock. */
export type Release = () => Promise<void>;

/**
 * Waits (up to the lock timeout) for the state directory's publication
 * lock: held by the kernel for its holder and freed when it exits however
 * it exits — so a crashed publisher never leaves a stale lock, and a live
 * one is never broken.
 */
export async function publicationLock(options: LockOptions): Promise<Release> {
  const real = await realpath(options.root).catch(() => options.root);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const lock = await stateLocks(real, options.locks).hold("publication");
    if (lock !== null)
      return async () => {
        lock.release();
      };
    if (Date.now() > deadline)
      throw new ProfileError(
        "lock_timeout",
        `another publisher holds ${options.root}'s publication lock`,
      );
    await new Promise((r) => setTimeout(r, 2 + Math.random() * 8));
  }
}

/** A stamp's device and inode: which file it is, whatever its times. */
const fileOf = (stamp: string) => stamp.split(":", 2).join(":");

/**
 * Writes `data` to `dir/name` through a synced file in the state
 * directory's `tmp/` and a rename; `syncDir` also syncs `dir` (a caller
 * writing several files there syncs it once after the last). Resolves to
 * the stamp of the file placed, or `undefined` when the file now at the
 * path is not the one written.
 */
export async function writeAtomic(
  root: string,
  at: { readonly dir: string; readonly name: string },
  data: string,
  syncDir = true,
): Promise<string | undefined> {
  const tmp = join(root, "tmp", `${temporaryName(at.name)}${randomBytes(6).toString("hex")}`);
  const path = join(at.dir, at.name);
  await writeDurable(tmp, data);
  const written = stampOf(tmp);
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
  if (syncDir) await fsyncDir(at.dir);
  const placed = stampOf(path);
  return written !== undefined && placed !== undefined && fileOf(written) === fileOf(placed)
    ? placed
    : undefined;
}

/** The files of one revision, as they are committed. */
export interface RevisionFiles {
  readonly id: string;
  /** The revision's canonical text (its id is the hash of it). */
  readonly text: string;
  readonly routesText: string;
  readonly catalogText: string;
  /** Parts of the route cache; one already written with the same bytes stays. */
  readonly parts: readonly Part[];
}

/**
 * Commits a revision on `base` under the publication lock: fails with
 * `conflict` if `active` (read by `active()`) no longer names `base`.
 * Resolves to the stamps of the route cache files it wrote or found with
 * its bytes (named as the route check names them: `revision`, `routes`,
 * `part:<digest>`).
 */
export async function commitRevision(
  lock: LockOptions,
  change: { readonly base: string | null; readonly active: () => string | null },
  files: RevisionFiles,
): Promise<Map<string, string>> {
  const { root } = lock;
  const revisionsDir = join(root, "revisions");
  const partsDir = join(revisionsDir, "parts");
  try {
    await mkdir(join(root, "tmp"), { recursive: true });
    await mkdir(partsDir, { recursive: true });
  } catch (e) {
    throw ioError("cannot create the state directory", e);
  }
  const release = await publicationLock(lock);
  try {
    const current = change.active();
    if (current !== change.base)
      throw new ProfileError(
        "conflict",
        `the active revision changed from ${change.base ?? "none"} to ${current ?? "none"} during publication; retry on the new base`,
      );
    // The parts of new packages, the route cache and the catalog land
    // before `active` names the revision, so a reader that sees the new id
    // always finds them; a part already written with the same bytes (by an
    // earlier revision) stays. One sync of each directory after the
    // revision file makes all renames durable.
    const stamps = new Map<string, string>();
    const note = (name: string, stamp: string | undefined) => {
      if (stamp !== undefined) stamps.set(name, stamp);
    };
    let wrote = false;
    for (const part of files.parts) {
      const path = partPath(root, part.digest);
      const have = readStamped(path, () => readFileAtMost(path, PART_MAX_BYTES));
      if (have.value instanceof Buffer && have.value.equals(Buffer.from(part.text))) {
        note(`part:${part.digest}`, have.stamp);
        continue;
      }
      const name = `${part.digest}.json`;
      note(
        `part:${part.digest}`,
        await writeAtomic(root, { dir: partsDir, name }, part.text, false),
      );
      wrote = true;
    }
    if (wrote) await fsyncDir(partsDir);
    const inRevisions = (name: string) => ({ dir: revisionsDir, name });
    note(
      "routes",
      await writeAtomic(root, inRevisions(`${files.id}.routes.json`), files.routesText, false),
    );
    await writeAtomic(root, inRevisions(`${files.id}.catalog.json`), files.catalogText, false);
    note("revision", await writeAtomic(root, inRevisions(`${files.id}.json`), files.text));
    await writeAtomic(root, { dir: root, name: "active" }, `${files.id}\n`);
    return stamps;
  } catch (e) {
    if (e instanceof ProfileError) throw e;
    throw ioError("cannot commit the revision", e);
  } finally {
    await release();
  }
}
