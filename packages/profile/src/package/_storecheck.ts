// The check a stored package gets every time it is used: its files still
// hash to its digest. Hashing is done once; afterwards a per-file record of
// device, inode, size, mtime and ctime says a file is unchanged, and only a
// file whose record differs is hashed again. Directories are recorded too,
// so a file added beside the signed ones (say, a module that would shadow
// the runtime) is noticed.

import { randomBytes } from "node:crypto";
import { type BigIntStats, constants, lstatSync, readdirSync } from "node:fs";
import { lstat, mkdir, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { canonicalJson, fingerprint, type JsonValue, sha256Hex } from "@rukh/json";
import {
  type ManifestFile,
  type PackageManifest,
  ProfileError,
  SIGNATURE_PATH,
} from "../model/index.js";
import { readFileAtMost } from "../routes/index.js";
import { temporaryName } from "../state-dir/index.js";

/** `[dev, ino, size, mtimeNs, ctimeNs]` as decimal strings. */
type Stamp = readonly [string, string, string, string, string];

interface CheckRecord {
  readonly format: "rukh.storecheck/1";
  readonly manifest: PackageManifest;
  /** The signature file is not in the manifest; its hash is recorded here. */
  readonly signature: string | null;
  readonly files: Readonly<Record<string, Stamp>>;
  /** Every directory of the package (`""`: its root) and the names it holds. */
  readonly dirs: Readonly<
    Record<string, { readonly stamp: Stamp; readonly names: readonly string[] }>
  >;
}

const RECORD_MAX_BYTES = 16 * 1024 * 1024;

const stampOf = (s: BigIntStats): Stamp => [
  String(s.dev),
  String(s.ino),
  String(s.size),
  String(s.mtimeNs),
  String(s.ctimeNs),
];
const same = (a: Stamp, b: Stamp) => a.every((x, i) => x === b[i]);

const recordPath = (root: string, digest: string) => join(root, "cache", "store", `${digest}.json`);

function corrupt(digest: string, what: string): ProfileError {
  return new ProfileError("store_corrupt", `stored package ${digest}: ${what}`);
}

/** Reads a file through one descriptor, with its stamp before and after: equal stamps, the bytes are the stamped file's. */
async function readStamped(path: string): Promise<{ bytes: Buffer; stamp: Stamp }> {
  const h = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const before = stampOf(await h.stat({ bigint: true }));
    const bytes = await h.readFile();
    const after = stampOf(await h.stat({ bigint: true }));
    if (!same(before, after)) throw new Error(`${path} changed while it was read`);
    return { bytes, stamp: after };
  } finally {
    await h.close();
  }
}

/** Records this process read and bound to their digest, with the stamp of the file they were read from. */
const verifiedRecords = new Map<string, { readonly stamp: Stamp; readonly record: CheckRecord }>();
const VERIFIED_RECORDS_MAX = 256;

/**
 * The check record of `digest`. One this process already read and bound to
 * the digest is used again while its file's stamp is the same (a record is
 * replaced by a rename, a new inode): a host checks a package on every call,
 * twice for a call handed a ready process, and parsing and fingerprinting the
 * manifest each time cost more than the lstats of the check itself.
 */
function readRecord(root: string, digest: string): CheckRecord | undefined {
  const path = recordPath(root, digest);
  let before: Stamp;
  try {
    before = stampOf(lstatSync(path, { bigint: true }));
  } catch {
    return unwrittenRecords.get(path);
  }
  const known = verifiedRecords.get(path);
  if (known !== undefined && same(known.stamp, before)) return known.record;
  const record = readRecordFile(path, digest);
  if (record === undefined) return undefined;
  try {
    if (!same(stampOf(lstatSync(path, { bigint: true })), before)) return record;
  } catch {
    return record;
  }
  if (verifiedRecords.size >= VERIFIED_RECORDS_MAX)
    verifiedRecords.delete(verifiedRecords.keys().next().value!);
  verifiedRecords.set(path, { stamp: before, record });
  return record;
}

function readRecordFile(path: string, digest: string): CheckRecord | undefined {
  let r: CheckRecord;
  try {
    const bytes = readFileAtMost(path, RECORD_MAX_BYTES);
    if (bytes === undefined || bytes === "large") return undefined;
    // Our own cache, bound to the digest below: plain JSON.parse is enough.
    r = JSON.parse(bytes.toString("utf8")) as CheckRecord;
  } catch {
    return undefined;
  }
  // The record is bound to the digest by its manifest: one for other content is not used.
  if (r?.format !== "rukh.storecheck/1" || typeof r.manifest !== "object" || r.manifest === null)
    return undefined;
  if (fingerprint(r.manifest as unknown as JsonValue) !== digest) return undefined;
  return r;
}

/**
 * Records this process could not write (a read-only state directory): kept
 * in memory instead, so that a host checks a package by its stamps from its
 * second call on, as it would with the file.
 */
const unwrittenRecords = new Map<string, CheckRecord>();

function keepUnwritten(path: string, record: CheckRecord): void {
  unwrittenRecords.delete(path);
  if (unwrittenRecords.size >= VERIFIED_RECORDS_MAX)
    unwrittenRecords.delete(unwrittenRecords.keys().next().value!);
  unwrittenRecords.set(path, record);
}

async function writeRecord(root: string, digest: string, record: CheckRecord): Promise<void> {
  const dir = join(root, "cache", "store");
  const tmpDir = join(root, "tmp");
  try {
    await mkdir(dir, { recursive: true });
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(
      tmpDir,
      `${temporaryName(`storecheck-${digest.slice(0, 16)}`)}${randomBytes(6).toString("hex")}`,
    );
    const h = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await h.writeFile(canonicalJson(record as unknown as JsonValue));
    } finally {
      await h.close();
    }
    await rename(tmp, recordPath(root, digest)).catch(async (e) => {
      await unlink(tmp).catch(() => {});
      throw e;
    });
    unwrittenRecords.delete(recordPath(root, digest));
  } catch {
    // Only a cache, never a failure: this process keeps it in memory instead.
    keepUnwritten(recordPath(root, digest), record);
  }
}

/** Hashes the whole package, checks it against its digest, and records what it hashed. */
async function fullCheck(
  root: string,
  digest: string,
  known?: PackageManifest,
): Promise<CheckRecord> {
  const base = join(root, "store", digest);
  const files: Record<string, Stamp> = {};
  const dirs: Record<string, { stamp: Stamp; names: string[] }> = {};
  const manifest: ManifestFile[] = [];
  let signature: string | null = null;
  const walk = async (rel: string): Promise<void> => {
    const full = rel === "" ? base : join(base, rel);
    const st = await lstat(full, { bigint: true });
    const names = (await readdir(full)).sort();
    const after = await lstat(full, { bigint: true });
    if (!same(stampOf(st), stampOf(after)))
      throw corrupt(digest, `${rel || "its root"} changed while it was read`);
    dirs[rel] = { stamp: stampOf(st), names };
    for (const name of names) {
      const path = rel === "" ? name : `${rel}/${name}`;
      const s = await lstat(join(base, path));
      if (s.isDirectory()) await walk(path);
      else if (s.isFile()) {
        const { bytes, stamp } = await readStamped(join(base, path));
        files[path] = stamp;
        if (path === SIGNATURE_PATH) signature = sha256Hex(bytes);
        else manifest.push({ path, size: bytes.length, sha256: sha256Hex(bytes) });
      } else throw corrupt(digest, `"${path}" is not a regular file or directory`);
    }
  };
  try {
    await walk("");
  } catch (e) {
    if (e instanceof ProfileError) throw e;
    throw corrupt(digest, `cannot be read (${(e as Error).message})`);
  }
  manifest.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const m: PackageManifest = { format: "rukh.manifest/1", files: manifest };
  const found = fingerprint(m as unknown as JsonValue);
  if (found !== digest) {
    // Named by the manifest it had when it was first checked, when there is one.
    const was = new Map(known?.files.map((f) => [f.path, f.sha256]));
    const file = m.files.find((f) => was.size > 0 && was.get(f.path) !== f.sha256);
    throw corrupt(
      digest,
      file !== undefined
        ? `"${file.path}" has been modified`
        : `has been modified (its content now hashes to ${found})`,
    );
  }
  return { format: "rukh.storecheck/1", manifest: m, signature, files, dirs };
}

/**
 * Confirms that a stored package's files still match its digest, or throws
 * `store_corrupt` naming what changed. The first check hashes every file and
 * records each one's device, inode, size, mtime and ctime under
 * `cache/store/` (in this process's memory when that cannot be written: a
 * read-only state directory); later checks only `lstat` — a file or directory whose
 * record differs is hashed or listed again, and the record refreshed when
 * the content is still right. Returns whether it had to hash anything.
 *
 * What the records catch: accidents, tools and other users (who cannot
 * write the records), and a program replaced since it was installed. What
 * they cannot: code running as this user, which can rewrite a file and its
 * record alike. `full` hashes every file against the digest and trusts no
 * record; `doctor` checks that way.
 *
 * @example
 * await checkStoredPackage(home.root, extension.digest); // before every spawn
 */
export async function checkStoredPackage(
  root: string,
  digest: string,
  options: { full?: boolean } = {},
): Promise<"recorded" | "hashed"> {
  const record = readRecord(root, digest);
  if (options.full === true) {
    // Every byte against the digest, trusting no record (`doctor`): what a re-stamped record hides.
    await writeRecord(root, digest, await fullCheck(root, digest, record?.manifest));
    return "hashed";
  }
  if (record === undefined) {
    await writeRecord(root, digest, await fullCheck(root, digest));
    return "hashed";
  }
  const base = join(root, "store", digest);
  const expected = new Map(record.manifest.files.map((f) => [f.path, f]));
  let changed = false;
  try {
    // Synchronous on purpose: a few dozen lstats cost microseconds each, a thread-pool round trip far more.
    for (const [rel, d] of Object.entries(record.dirs)) {
      const dir = rel === "" ? base : join(base, rel);
      const st = lstatSync(dir, { bigint: true });
      if (!st.isDirectory()) throw corrupt(digest, `"${rel}" is no longer a directory`);
      if (same(stampOf(st), d.stamp)) continue;
      const names = readdirSync(dir).sort();
      if (names.join("\0") !== d.names.join("\0"))
        throw corrupt(
          digest,
          `the entries of ${rel === "" ? "its root" : `"${rel}"`} changed (${names.filter((n) => !d.names.includes(n)).join(", ") || "some removed"})`,
        );
      changed = true;
    }
    for (const [path, stamp] of Object.entries(record.files)) {
      const st = lstatSync(join(base, path), { bigint: true });
      if (!st.isFile()) throw corrupt(digest, `"${path}" is no longer a regular file`);
      if (same(stampOf(st), stamp)) continue;
      const { bytes } = await readStamped(join(base, path));
      const want = path === SIGNATURE_PATH ? record.signature : expected.get(path)?.sha256;
      if (sha256Hex(bytes) !== want) throw corrupt(digest, `"${path}" has been modified`);
      changed = true;
    }
  } catch (e) {
    if (e instanceof ProfileError) throw e;
    throw corrupt(digest, `cannot be read (${(e as Error).message})`);
  }
  if (!changed) return "recorded";
  // Touched but intact (a copy, a restore): hash it all once more and record the new stamps.
  await writeRecord(root, digest, await fullCheck(root, digest));
  return "hashed";
}

/**
 * A package's `store_corrupt` error as an owner reads it: which extension,
 * what changed, and the repair.
 *
 * @example
 * throw corruptExtension(entry, e);
 */
export function corruptExtension(
  entry: { readonly id: string; readonly version: string },
  e: ProfileError,
): ProfileError {
  return new ProfileError(
    "store_corrupt",
    `${entry.id}@${entry.version}: ${e.message}; install its package again to restore it, or remove ${entry.id}`,
    { cause: e },
  );
}
