// The buckets of a verified route cache header, read on demand: one line per
// first word of a command path or alias, each checked against the digest the
// header records and naming the parts its commands are in, and each
// command's route read from its package's part and checked against the
// digest its bucket records. Loaded by the CLI's start-up
// path, so it needs nothing but node:fs and a hash.

import { hash } from "node:crypto";
import { join } from "node:path";
import type { CliRoute } from "../model/index.js";
import { readFileAtMost, readRange } from "./_bounded-reads.js";
import { type RouteCheck, readStamped } from "./_route-check.js";

/** Lowercase hex SHA-256 (Node's one-shot hash: no Hash object per line). */
export const sha256 = (data: string | Buffer) => hash("sha256", data);

/** The digest a route cache records of one line: the first 128 bits of its SHA-256, hex. */
export function routeLineDigest(line: string | Buffer): string {
  return sha256(line).slice(0, 32);
}

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

/** Path, aliases and summary of a command: enough to list, route and complete it. */
export interface RouteHead {
  readonly path: readonly string[];
  readonly aliases: readonly (readonly string[])[];
  readonly summary: string;
}

/** One bucket's line as a route cache holds it: its first word, text, size, digest and the word's route key. */
export interface BucketLine {
  readonly word: string;
  readonly text: string;
  readonly bytes: number;
  readonly digest: string;
  readonly key: string;
}

/** Commands of a route cache with their routes read on demand: one bucket, or all of them. */
export interface RouteSet {
  /** Each command's head, sorted by path. */
  readonly commands: readonly RouteHead[];
  /** The full route of `commands[i]` (read from its package's part, checked against its digest). */
  route(i: number): CliRoute;
  /** Where `commands[i]`'s route is: its package's digest, the line of its part, and the line's digest. */
  row(i: number): { readonly part: string; readonly line: number; readonly digest: string };
  /**
   * The validated descriptor of `commands[i]`'s package, as publication wrote
   * it (the first line of its part, the whole part checked against the
   * digest its bucket records); `undefined` when the part fails the check.
   */
  descriptor(i: number): unknown;
}

const isIndex = (v: unknown, parts: number): v is number =>
  Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < parts;
const isRow = (parts: number) => (r: unknown) =>
  Array.isArray(r) && isIndex(r[0], parts) && Number.isSafeInteger(r[1]) && r[1] >= 1;
const isPartDigest = (parts: number) => (r: unknown) =>
  Array.isArray(r) &&
  isIndex(r[0], parts) &&
  typeof r[1] === "string" &&
  /^[0-9a-f]{64}$/.test(r[1]);

/** A route cache's verified header: the state directory, the revision, its file, and the buckets it names. */
export interface RouteCacheHeader {
  readonly root: string;
  readonly id: string;
  readonly file: string;
  /** The header line's length, without its newline. */
  readonly headerBytes: number;
  /** Each bucket's first word, size, digest and route key, in file order. */
  readonly words: readonly (readonly [string, number, string, string])[];
  /** The record of the files checked before: a line of a file it knows is not hashed again. */
  readonly check: RouteCheck;
}

/** One bucket line's members, as parsed and checked for shape. */
interface BucketRows {
  readonly commands: readonly RouteHead[];
  readonly parts: readonly string[];
  readonly rows: readonly [number, number][];
  readonly digests: readonly string[];
  readonly partDigests: ReadonlyMap<number, string>;
  /** Whether the line was read from the routes file as checked before (its digests hold). */
  readonly known: boolean;
}

/** A part's bytes, where each of its lines starts, and whether it is the file checked before. */
interface Part {
  readonly bytes: Buffer;
  readonly starts: number[];
  readonly known: boolean;
}

/** The buckets after a verified header of `file` (revision `id`), each read when first asked for. */
export class RouteBuckets {
  /** The first words, sorted. */
  readonly words: readonly string[];
  /** Where the last bucket ends: the file's size, if the file holds what the header names. */
  readonly end: number;
  readonly #at = new Map<string, readonly [start: number, size: number, digest: string]>();
  readonly #read = new Map<string, { readonly set: RouteSet; readonly rows: BucketRows }>();
  readonly #parts = new Map<string, Part>();
  readonly #check: RouteCheck;
  #all: RouteSet | undefined;

  readonly #keys = new Map<string, string>();

  readonly root: string;
  readonly id: string;
  readonly file: string;

  constructor({ root, id, file, headerBytes, words, check }: RouteCacheHeader) {
    this.#check = check;
    this.root = root;
    this.id = id;
    this.file = file;
    let offset = headerBytes + 1;
    for (const [w, size, digest, key] of words) {
      this.#at.set(w, [offset, size, digest]);
      this.#keys.set(w, key);
      offset += size + 1;
    }
    this.end = offset;
    this.words = words.map(([w]) => w);
  }

  /**
   * Every bucket's line as written, each checked against its digest, with
   * its word's route key: what a publication carries over unchanged.
   */
  lines(): BucketLine[] {
    const first = this.words.length === 0 ? this.end : this.#at.get(this.words[0]!)![0];
    const { value: all, known } = this.#readLines(first, Math.max(0, this.end - 1 - first));
    return this.words.map((word) => {
      const [start, size, digest] = this.#at.get(word)!;
      const line = all.subarray(start - first, start - first + size);
      if (line.length !== size || (!known && routeLineDigest(line) !== digest))
        throw new Error(
          `the commands under "${word}" in the route cache of revision ${this.id} do not match their digest (edited or damaged)`,
        );
      return { word, text: line.toString("utf8"), bytes: size, digest, key: this.#keys.get(word)! };
    });
  }

  /** The commands whose path or an alias starts with `word` (`undefined`: none); throws when its line fails its digest. */
  bucket(word: string): RouteSet | undefined {
    const where = this.#at.get(word);
    if (where === undefined) return undefined;
    const read = this.#read.get(word);
    if (read !== undefined) return read.set;
    const { value, known } = this.#readLines(where[0], where[1]);
    return this.#parse(word, value, known);
  }

  /** `length` bytes of the routes file from `position`, and whether the file is as checked before. */
  #readLines(position: number, length: number): { value: Buffer; known: boolean } {
    const { value, stamp } = readStamped(this.file, () => readRange(this.file, position, length));
    return { value, known: this.#check.known("routes", stamp) };
  }

  /** Bucket `word` from its line's bytes, checked against the header's digest unless `known`. */
  #parse(word: string, line: Buffer, known: boolean): RouteSet {
    const [, size, digest] = this.#at.get(word)!;
    if (line.length !== size || (!known && routeLineDigest(line) !== digest))
      throw new Error(
        `the commands under "${word}" in the route cache of revision ${this.id} do not match their digest (edited or damaged)`,
      );
    const x = JSON.parse(line.toString("utf8"));
    const parts: unknown = x?.parts;
    if (
      !Array.isArray(x?.commands) ||
      !Array.isArray(parts) ||
      !parts.every((d) => typeof d === "string" && /^[0-9a-f]{64}$/.test(d)) ||
      !Array.isArray(x.rows) ||
      !Array.isArray(x.digests) ||
      x.rows.length !== x.commands.length ||
      x.digests.length !== x.commands.length ||
      !x.rows.every(isRow(parts.length)) ||
      !Array.isArray(x.partDigests) ||
      !x.partDigests.every(isPartDigest(parts.length))
    )
      throw new Error(
        `the commands under "${word}" in the route cache of revision ${this.id} are malformed`,
      );
    const rows: BucketRows = {
      commands: x.commands,
      parts: parts as string[],
      rows: x.rows,
      digests: x.digests,
      partDigests: new Map(x.partDigests),
      known,
    };
    const set = this.#set(rows);
    this.#read.set(word, { set, rows });
    return set;
  }

  /**
   * Checks every digest the cache holds (each bucket line, each command's
   * route line, each part that carries a descriptor) except those of files
   * as checked before; throws at the first that fails.
   */
  checkWhole(): void {
    this.all();
    for (const { rows } of this.#read.values()) {
      rows.rows.forEach(([p, n], i) => {
        this.#checkedLine(rows, p, n, i);
      });
      for (const [p, expected] of rows.partDigests) {
        const part = this.#part(rows.parts[p]!);
        if (!part.known && sha256(part.bytes) !== expected)
          throw new Error(`the part of package ${rows.parts[p]} does not match its digest`);
      }
    }
  }

  /** Line `n` of part `p` of a bucket, the route of its command `i`, checked against its digest unless both files are as checked before. */
  #checkedLine(rows: BucketRows, p: number, n: number, i: number): Buffer {
    const part = this.#part(rows.parts[p]!);
    const line = this.#partLine(rows.parts[p]!, n);
    if (
      line === undefined ||
      (!(rows.known && part.known) && routeLineDigest(line) !== rows.digests[i])
    )
      throw new Error(
        `the route of ${rows.commands[i]!.path.join(" ")} in the route cache of revision ${this.id} does not match its digest (edited or damaged)`,
      );
    return line;
  }

  /** Every command once, sorted by path: all buckets merged. */
  all(): RouteSet {
    if (this.#all !== undefined) return this.#all;
    // Every bucket line, read in one go rather than one open and read each.
    const first = this.words.length === 0 ? this.end : this.#at.get(this.words[0]!)![0];
    const lines = this.#readLines(first, Math.max(0, this.end - 1 - first));
    const seen = new Map<string, [RouteSet, number]>();
    for (const w of this.words) {
      const [start, size] = this.#at.get(w)!;
      const b =
        this.#read.get(w)?.set ??
        this.#parse(w, lines.value.subarray(start - first, start - first + size), lines.known);
      b.commands.forEach((c, i) => {
        const k = c.path.join(" ");
        if (!seen.has(k)) seen.set(k, [b, i]);
      });
    }
    const sorted = [...seen].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, x]) => x);
    this.#all = {
      commands: sorted.map(([b, i]) => b.commands[i]!),
      row: (i) => sorted[i]![0].row(sorted[i]![1]),
      route: (i) => sorted[i]![0].route(sorted[i]![1]),
      descriptor: (i) => sorted[i]![0].descriptor(sorted[i]![1]),
    };
    return this.#all;
  }

  /** Line `n` of a package's part, the part read (and its lines found) once. */
  #partLine(digest: string, n: number): Buffer | undefined {
    const part = this.#part(digest);
    // A line is complete only with its newline: the last start is past the last one.
    if (n + 1 >= part.starts.length) return undefined;
    return part.bytes.subarray(part.starts[n]!, part.starts[n + 1]! - 1);
  }

  #part(digest: string): Part {
    let part = this.#parts.get(digest);
    if (part === undefined) {
      const path = partPath(this.root, digest);
      const { value: bytes, stamp } = readStamped(path, () => readFileAtMost(path, PART_MAX_BYTES));
      if (bytes === undefined || bytes === "large")
        throw new Error(`the part of package ${digest} is missing or too large`);
      const starts = [0];
      for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, nl + 1))
        starts.push(nl + 1);
      part = { bytes, starts, known: this.#check.known(`part:${digest}`, stamp) };
      this.#parts.set(digest, part);
    }
    return part;
  }

  #set(b: BucketRows): RouteSet {
    const { commands, parts, rows, digests, partDigests } = b;
    const row = (i: number) => {
      const [p, line] = rows[i]!;
      return { part: parts[p]!, line, digest: digests[i]! };
    };
    return {
      commands,
      row,
      route: (i) => {
        const [p, n] = rows[i]!;
        return JSON.parse(this.#checkedLine(b, p, n, i).toString("utf8")) as CliRoute;
      },
      descriptor: (i) => {
        const p = rows[i]![0];
        const expected = partDigests.get(p);
        if (expected === undefined) return undefined;
        const part = this.#part(parts[p]!);
        if ((!part.known && sha256(part.bytes) !== expected) || part.starts.length < 2)
          return undefined;
        return JSON.parse(part.bytes.toString("utf8", 0, part.starts[1]! - 1));
      },
    };
  }
}
