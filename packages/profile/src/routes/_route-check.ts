// The record of a route cache checked whole: the stamp (device, inode, size,
// modification and change times) of each file of a revision's route cache
// (the revision, its routes file, the parts they name) as it was when every
// digest in it was checked. While a file keeps its stamp its bytes are the
// ones checked, so a reader uses them without hashing again: the rule the
// store check follows for a stored package (package/_storecheck.ts), and what
// lets help and completion start without loading node:crypto. A file written
// since, in place or anew, has another stamp and is hashed as before. The
// record is written by a reader that checked every digest, or by the
// publication that wrote the files (publication/_checked-files.ts).
//
// It is two lines: the revision's and routes file's stamps, then the parts'.
// Help at the root reads no part, so the second line (a stamp per installed
// package) is parsed only when a part is asked for.

import { lstatSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readFileAtMost } from "./_bounded-reads.js";

const FORMAT = "rukh.routecheck/2";
const PART = "part:";
const RECORD_MAX_BYTES = 4 * 1024 * 1024;

/** The folder of the records, one per revision. */
export const routeCheckDir = (root: string) => join(root, "cache", "routes");

/** Where the record of revision `id`'s route cache is. */
export const routeCheckPath = (root: string, id: string) => join(routeCheckDir(root), `${id}.json`);

/** A regular file's device, inode, size and times (ns) as one string; `undefined` if there is none. */
export function stampOf(path: string): string | undefined {
  try {
    const s = lstatSync(path, { bigint: true });
    return s.isFile() ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `read()` of the file at `path` with its stamp taken before and after:
 * `stamp` is set only when both agree (the bytes read are the stamped
 * file's).
 */
export function readStamped<T>(path: string, read: () => T): { value: T; stamp?: string } {
  const before = stampOf(path);
  const value = read();
  const after = stampOf(path);
  return before !== undefined && before === after ? { value, stamp: before } : { value };
}

/** The files of one revision's route cache recorded as checked, by name: `revision`, `routes`, `part:<digest>`. */
export class RouteCheck {
  readonly #path: string;
  readonly #known: RecordedStamps;
  readonly #seen = new Map<string, string>();
  /** Whether a file was read this time whose stamp the record does not hold. */
  #missed = false;
  /** Whether a file was read twice with two stamps (changed meanwhile): nothing is recorded then. */
  #changed = false;

  constructor(root: string, id: string) {
    this.#path = routeCheckPath(root, id);
    this.#known = recordedStamps(root, id);
  }

  /** Whether `name`, read with `stamp`, is as checked; notes the stamp either way. */
  known(name: string, stamp: string | undefined): boolean {
    if (stamp === undefined) {
      this.#missed = true;
      return false;
    }
    const before = this.#seen.get(name);
    if (before !== undefined && before !== stamp) this.#changed = true;
    this.#seen.set(name, stamp);
    const hit = this.#known.get(name) === stamp;
    if (!hit) this.#missed = true;
    return hit;
  }

  /** Whether every file read so far was as checked (nothing new to record). */
  get whole(): boolean {
    return !this.#missed;
  }

  /**
   * Records the stamps noted, each file having passed every check of its
   * digests; a record that cannot be written only costs the next reader a
   * hash.
   */
  save(): void {
    if (!this.#changed) writeRecord(this.#path, this.#seen);
  }
}

/**
 * Records revision `id`'s route cache files as checked with `stamps` (by
 * name, as {@link RouteCheck} names them); a record that cannot be written
 * only costs the next reader a hash.
 */
export function recordChecked(root: string, id: string, stamps: ReadonlyMap<string, string>): void {
  writeRecord(routeCheckPath(root, id), stamps);
}

function writeRecord(path: string, stamps: ReadonlyMap<string, string>): void {
  try {
    const head: Record<string, string> = {};
    const parts: Record<string, string> = {};
    for (const [name, stamp] of stamps) (name.startsWith(PART) ? parts : head)[name] = stamp;
    const text = `${JSON.stringify({ format: FORMAT, files: head })}\n${JSON.stringify(parts)}\n`;
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, text, { mode: 0o600 });
    } catch (e) {
      // The folder is made once, by the first record.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
      writeFileSync(tmp, text, { mode: 0o600 });
    }
    renameSync(tmp, path);
  } catch {
    // Read-only, or not this user's: nothing is recorded.
  }
}

/**
 * The stamps one record holds, by name: the first line's at once, the
 * parts' (the second line) parsed at the first part asked for. A line that
 * does not parse vouches for nothing.
 */
export class RecordedStamps {
  readonly #head: ReadonlyMap<string, string>;
  #partsText: string | undefined;
  #parts: ReadonlyMap<string, string> | undefined;

  constructor(head: ReadonlyMap<string, string> = new Map(), partsText?: string) {
    this.#head = head;
    this.#partsText = partsText;
  }

  /** The stamp recorded for `name`, if any. */
  get(name: string): string | undefined {
    if (!name.startsWith(PART)) return this.#head.get(name);
    if (this.#parts === undefined) {
      this.#parts = stampsOf(this.#partsText === undefined ? undefined : parsed(this.#partsText));
      this.#partsText = undefined;
    }
    return this.#parts.get(name);
  }
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The string members of a parsed object, as a map; none for anything else. */
function stampsOf(v: unknown): ReadonlyMap<string, string> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return new Map();
  return new Map(
    Object.entries(v as Record<string, unknown>).filter(
      (e): e is [string, string] => typeof e[1] === "string",
    ),
  );
}

/** The stamps revision `id`'s record holds (none when there is no readable record). */
export function recordedStamps(root: string, id: string): RecordedStamps {
  try {
    const bytes = readFileAtMost(routeCheckPath(root, id), RECORD_MAX_BYTES);
    if (bytes === undefined || bytes === "large") return new RecordedStamps();
    const nl = bytes.indexOf(0x0a);
    const r = parsed(bytes.toString("utf8", 0, nl === -1 ? bytes.length : nl)) as {
      format?: unknown;
      files?: unknown;
    } | null;
    if (r?.format !== FORMAT || nl === -1) return new RecordedStamps();
    return new RecordedStamps(stampsOf(r.files), bytes.toString("utf8", nl + 1));
  } catch {
    return new RecordedStamps();
  }
}
