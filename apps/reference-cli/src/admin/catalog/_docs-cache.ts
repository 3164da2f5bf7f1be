// The rendered `docs` of a revision, kept in the state directory's cache:
// a revision is immutable, so its reference for one preset, brand and CLI
// version is too. The first `docs` renders it and keeps it; later ones
// stream the kept file after checking it against its SHA-256. Only a cache:
// anything wrong with it (missing, damaged, unwritable disk) renders again.

import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "@rukh/json";

/** Rendered references kept at once (the newest; each is megabytes at 10,000 commands). */
const KEPT = 4;
/** Largest reference kept or read. */
const MAX_BYTES = 256 * 1024 * 1024;

/** Where the reference of `parts` (revision, preset, brand, version…) is kept under `stateDir`. */
export function docsCacheKey(parts: readonly string[]): string {
  return sha256Hex(JSON.stringify(["rukh.docs/1", ...parts]));
}

/** Reads a file of at most `max` bytes: its bytes, `undefined` when missing, `"large"` when longer (`readFileAtMost` of @rukh/profile). */
export type BoundedRead = (file: string, max: number) => Buffer | undefined | "large";

/** The kept reference of `key`, when it is there and matches its digest. */
export function readDocs(read: BoundedRead, stateDir: string, key: string): string | undefined {
  const dir = join(stateDir, "cache", "docs");
  try {
    const digest = read(join(dir, `${key}.sha256`), 128);
    const bytes = read(join(dir, `${key}.md`), MAX_BYTES);
    if (!Buffer.isBuffer(digest) || !Buffer.isBuffer(bytes)) return undefined;
    return sha256Hex(bytes) === digest.toString("latin1").trim()
      ? bytes.toString("utf8")
      : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `markdown` as the reference of `key` (best effort: a failure only means rendering again next time). */
export function keepDocs(stateDir: string, key: string, markdown: string): void {
  if (Buffer.byteLength(markdown) > MAX_BYTES) return;
  const dir = join(stateDir, "cache", "docs");
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = (name: string) => join(dir, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
    // The file first, then its digest: a reader never takes a half-written file.
    const md = tmp(`${key}.md`);
    writeFileSync(md, markdown, { flag: "wx", mode: 0o644 });
    renameSync(md, join(dir, `${key}.md`));
    const sum = tmp(`${key}.sha256`);
    writeFileSync(sum, `${sha256Hex(markdown)}\n`, { flag: "wx", mode: 0o644 });
    renameSync(sum, join(dir, `${key}.sha256`));
    prune(dir);
  } catch {
    // Only a cache.
  }
}

/** Removes all but the newest {@link KEPT} references, and temporary files left by a crash. */
function prune(dir: string): void {
  const kept = readdirSync(dir)
    .filter((f) => f.endsWith(".md") && !f.startsWith("."))
    .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { f } of kept.slice(KEPT)) {
    const key = f.slice(0, -".md".length);
    for (const name of [`${key}.sha256`, f]) unlinkSync(join(dir, name));
  }
  const hour = Date.now() - 3_600_000;
  for (const f of readdirSync(dir))
    if (f.endsWith(".tmp") && statSync(join(dir, f)).mtimeMs < hour) unlinkSync(join(dir, f));
}
