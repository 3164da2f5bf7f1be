import {
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  writeSync,
} from "node:fs";
import { mkdir, open, readdir, readFile, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  type LockMechanism,
  type NamedLock,
  type OwnerConfig,
  type StateDirectory,
  type StateLocks,
  stateLocks,
} from "@rukh/profile";
import { JOURNAL_MAX_BYTES } from "../contract/index.js";
import { journalPaths, liveSegmentHost, readSegmentLeniently, segmentNames } from "./_journal.js";
import { indexAfterAppend, indexFile, loadIndex, loadWholeIndex } from "./_journal-index.js";
import { type ClockReading, readClock, retentionVerdict } from "./_retention.js";

/** An archive segment is closed once it holds this many bytes (8 MiB); the next one begins. */
export const ARCHIVE_SEGMENT_BYTES = 8_388_608;

/** How much history the archive keeps: the oldest segments go first. */
export interface JournalRetention {
  readonly maxAgeMs: number;
  readonly maxBytes: number;
}

/** 30 days and 256 MiB, unless the owner configuration's `journal` says less or more. */
export const DEFAULT_RETENTION: JournalRetention = Object.freeze({
  maxAgeMs: 30 * 86_400_000,
  maxBytes: 268_435_456,
});

/** The retention an owner configuration asks for (its `journal` member), defaults filled in. */
export function retentionOf(journal: OwnerConfig["journal"]): JournalRetention {
  return {
    maxAgeMs:
      journal?.maxAgeDays === undefined
        ? DEFAULT_RETENTION.maxAgeMs
        : journal.maxAgeDays * 86_400_000,
    maxBytes: journal?.maxBytes ?? DEFAULT_RETENTION.maxBytes,
  };
}

/** The owner's retention as the active revision sets it; read only when a new archive segment begins. */
export function ownerRetention(state: StateDirectory): () => Promise<JournalRetention> {
  return async () => {
    const active = await state.activeRevisionId().catch(() => null);
    return retentionOf(
      active === null ? undefined : (await state.readRevision(active)).config.journal,
    );
  };
}

const ARCHIVE_TRIES = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function syncDir(dir: string): Promise<void> {
  const h = await open(dir, constants.O_RDONLY);
  await h.sync().finally(() => h.close());
}

/** Where a host archives, who it is, and what it reads only when a new archive segment begins. */
export interface ArchiveOptions {
  readonly stateRoot: string;
  readonly locks: StateLocks;
  /** The archiving host: its own records never vouch for its clock. */
  readonly host: string;
  readonly retention: () => Promise<JournalRetention>;
}

/**
 * Moves a finished live segment into the archive: appends its bytes whole to
 * the newest archive segment (or a new one past {@link ARCHIVE_SEGMENT_BYTES}),
 * flushes, brings that archive segment's index up to date (see
 * {@link indexAfterAppend}), then removes the live file; then applies the retention. Returns
 * false, leaving the live segment where it is for a later host, when the
 * archive is busy for long or cannot be written (a full disk) — an append
 * that fails part-way is cut back off.
 */
export async function archiveSegment(liveFile: string, o: ArchiveOptions): Promise<boolean> {
  const { stateRoot, locks } = o;
  let lock: NamedLock | null = null;
  for (let i = 0; i < ARCHIVE_TRIES && lock === null; i++) {
    // One archiver at a time on a state directory.
    lock = await locks.hold("archive");
    if (lock === null) await sleep(5);
  }
  if (lock === null) return false;
  try {
    const p = journalPaths(stateRoot);
    let bytes: Buffer;
    try {
      // A live segment rolls over at 4 MiB; anything far larger is not one of ours to append.
      if ((await stat(liveFile)).size > JOURNAL_MAX_BYTES) return false;
      bytes = await readFile(liveFile);
    } catch {
      return false;
    }
    await mkdir(p.archive, { recursive: true, mode: 0o700 });
    const names = await segmentNames(p.archive);
    const newest = names.at(-1);
    let target = newest === undefined ? undefined : join(p.archive, newest);
    if (target !== undefined && (await stat(target)).size + bytes.length > ARCHIVE_SEGMENT_BYTES)
      target = undefined;
    const created = target === undefined;
    const next = newest === undefined ? 1 : Number.parseInt(newest, 10) + 1;
    const file = target ?? join(p.archive, `${String(next).padStart(10, "0")}.jsonl`);
    // Read before the append: an index that holds up to here is extended, not rebuilt.
    const prior = created ? undefined : await loadWholeIndex(file);
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
    const before = fstatSync(fd).size;
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off);
      fdatasyncSync(fd);
    } catch {
      try {
        ftruncateSync(fd, before);
        fdatasyncSync(fd);
      } catch {}
      return false;
    } finally {
      closeSync(fd);
    }
    if (created) await syncDir(p.archive);
    await indexAfterAppend(file, prior, bytes, before);
    await unlink(liveFile);
    await syncDir(p.live);
    // History is pruned when a new archive segment begins: a call pays for one stat, not the archive.
    if (created) await prune(p.archive, await o.retention(), o.host);
    return true;
  } finally {
    lock.release();
  }
}

/**
 * The newest `at` of a segment's records, those of `exceptHost` left out;
 * null when it has none (or cannot be read). Without `exceptHost`, from the
 * segment's index when it holds for the segment (the same time, computed
 * when the index was written), else parsed.
 */
async function newestRecordAt(file: string, exceptHost?: string): Promise<number | null> {
  // An index that holds for the segment knows its newest time; it cannot leave a host out.
  if (exceptHost === undefined) {
    const index = await loadIndex(file);
    if (index !== undefined) return index.header.newestAt;
  }
  const seg = await readSegmentLeniently(file, basename(file)).catch(() => undefined);
  let newest: number | null = null;
  for (const r of seg?.records ?? []) {
    if (r.type === "process" || r.host === exceptHost) continue;
    const t = Date.parse(r.at);
    if (!Number.isNaN(t) && (newest === null || t > newest)) newest = t;
  }
  return newest;
}

/** The newest record time among `files` (those of `exceptHost` left out), null when none. */
async function newestOf(files: readonly string[], exceptHost?: string): Promise<number | null> {
  const times = await Promise.all(files.map((f) => newestRecordAt(f, exceptHost)));
  return times.reduce<number | null>(
    (a, t) => (t === null || (a !== null && a >= t) ? a : t),
    null,
  );
}

/**
 * How this process's clock stands against the journal's newest record: the
 * two newest archive segments and (for `doctor`) the live ones; the records
 * of `exceptHost`, the one deciding, never vouch for its own clock.
 */
async function journalClock(files: readonly string[], exceptHost?: string): Promise<ClockReading> {
  return readClock(Date.now(), await newestOf(files, exceptHost));
}

/**
 * How this process's clock stands against the archive's newest record time,
 * `host`'s own records left out: what age-based retention of anything kept
 * beside the journal is measured by.
 */
export async function archiveClock(stateRoot: string, host: string): Promise<ClockReading> {
  const { archive } = journalPaths(stateRoot);
  const files = (await segmentNames(archive)).map((n) => join(archive, n));
  return journalClock(files.slice(-2), host);
}

/**
 * Deletes the oldest archive segments past the size budget, or past the age
 * budget measured between their records and the journal's newest — only
 * while this process's clock agrees with that record time. Never the newest.
 */
async function prune(archive: string, retention: JournalRetention, host: string): Promise<void> {
  const names = await segmentNames(archive);
  const files = names.map((n) => join(archive, n));
  const stats = await Promise.all(files.map((f) => stat(f)));
  let totalBytes = stats.reduce((sum, s) => sum + s.size, 0);
  const clock = await journalClock(files.slice(-2), host);
  let before: number | null = null;
  for (let i = 0; i < names.length - 1; i++) {
    const size = stats[i]!.size;
    // Read only when age can count; the segment's time goes into `before` either way.
    const newestAt = clock.kind === "agrees" ? await newestRecordAt(files[i]!) : null;
    const verdict = retentionVerdict(
      { size, newestAt },
      { ...retention, totalBytes, clock, before },
    );
    if (verdict === null) break;
    await unlink(files[i]!).catch(() => {});
    await unlink(indexFile(files[i]!)).catch(() => {});
    totalBytes -= size;
    if (newestAt !== null && (before === null || newestAt > before)) before = newestAt;
  }
}

/** Moves a damaged segment aside, bytes kept, under a name that says when. Returns its new path. */
export async function quarantineSegment(stateRoot: string, file: string): Promise<string> {
  const { quarantine } = journalPaths(stateRoot);
  await mkdir(quarantine, { recursive: true, mode: 0o700 });
  const to = join(quarantine, `${new Date().toISOString().replaceAll(":", "-")}-${basename(file)}`);
  await rename(file, to);
  return to;
}

/**
 * What the journal holds, for `doctor`: live segments (running hosts, and
 * lost ones the next start will finish), the archived history and what was
 * set aside as damaged.
 *
 * @example
 * const j = await describeJournal(state.root);
 * if (j.quarantined.length > 0) console.log(`damaged segments kept in ${j.quarantineDir}`);
 */
export interface JournalReport {
  readonly liveSegments: number;
  /** Hosts with live segments whose process is gone: the next start (or `doctor --repair`) finishes them. */
  readonly lostHosts: number;
  readonly archiveSegments: number;
  readonly archiveBytes: number;
  readonly quarantineDir: string;
  readonly quarantined: readonly string[];
  /** The newest record time of the newest archive and live segments (ISO 8601), null when none. */
  readonly newestRecordAt: string | null;
  /**
   * How far this process's clock is ahead of or behind that record, when by
   * more than retention trusts (then it deletes nothing by age); null when
   * they agree or there is nothing to compare.
   */
  readonly clockSkew: { readonly direction: "ahead" | "behind"; readonly ms: number } | null;
}

/**
 * Describes the journal of a state directory without reading its records;
 * `mechanism` is how its locks are held (default: this system's).
 *
 * @example
 * const { archiveBytes } = await describeJournal(state.root);
 */
export async function describeJournal(
  stateRoot: string,
  mechanism?: LockMechanism,
): Promise<JournalReport> {
  const p = journalPaths(stateRoot);
  const archive = await segmentNames(p.archive);
  const sizes = await Promise.all(archive.map((n) => stat(join(p.archive, n)).then((s) => s.size)));
  let quarantined: string[] = [];
  try {
    quarantined = (await readdir(p.quarantine)).sort();
  } catch {}
  const live = await segmentNames(p.live);
  const clock = await journalClock([
    ...archive.slice(-2).map((n) => join(p.archive, n)),
    ...live.map((n) => join(p.live, n)),
  ]);
  let lostHosts = 0;
  const locks = stateLocks(await realpath(stateRoot).catch(() => stateRoot), mechanism);
  for (const host of new Set(live.map(liveSegmentHost))) {
    // A held liveness lock is a running host; one that can be taken is lost.
    const lock = await locks.hold("host", host);
    if (lock === null) continue;
    lock.release();
    lostHosts++;
  }
  return {
    liveSegments: live.length,
    lostHosts,
    archiveSegments: archive.length,
    archiveBytes: sizes.reduce((a, b) => a + b, 0),
    quarantineDir: p.quarantine,
    quarantined,
    newestRecordAt: clock.kind === "unknown" ? null : new Date(clock.journalTime).toISOString(),
    clockSkew:
      clock.kind === "ahead" || clock.kind === "behind"
        ? { direction: clock.kind, ms: clock.byMs }
        : null,
  };
}
