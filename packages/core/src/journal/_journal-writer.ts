// One host's live segment file: records appended one canonical line each,
// flushed before anyone acts on them, one flush shared by the records of
// concurrent calls.

import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { canonicalJson, type JsonValue } from "@rukh/json";
import { CoreError, JOURNAL_RECORD_MAX_BYTES } from "../contract/index.js";
import { type JournalRecord, journalPaths, liveSegmentName } from "./_journal.js";

/** A live segment rolls over to the next part once it holds this many bytes (4 MiB). */
export const LIVE_SEGMENT_BYTES = 4_194_304;

/** How the writer writes: `writeSync`'s shape, so a test can fail it after any byte. */
export type WriteFn = (fd: number, buffer: Uint8Array, offset: number) => number;

/** How the writer flushes in the background: `fdatasync`'s shape, so a test can hold back or fail a shared flush. */
export type FlushFn = (fd: number, done: (err: Error | null) => void) => void;

/**
 * What a test may change: the size past which a part rolls over (lowered
 * to see a roll-over without writing megabytes), and the background flush
 * of the segments a host creates (held back to see that nothing is
 * delivered before its record is on disk).
 */
export const journalTuning: { liveSegmentBytes: number; flush: FlushFn } = {
  liveSegmentBytes: LIVE_SEGMENT_BYTES,
  flush: fdatasync,
};

/** An append waiting for the flush that puts it on disk. */
interface Waiter {
  /** The segment's size once its record was written. */
  readonly end: number;
  readonly resolve: () => void;
  readonly reject: (e: Error) => void;
}

/**
 * One host's live segment: one canonical JSON line per record. `append`
 * writes and flushes synchronously; `appendGrouped` writes at once and
 * resolves once a flush begun after the write has ended, so the records of
 * calls in flight together share one `fdatasync` (run off the event loop)
 * and no call waits on another's. Either way a record is on disk before the
 * caller takes its next step (spawning, returning an outcome). Only its host
 * writes it, so a failed append can always be cut back off: a failed write
 * cuts back its own bytes, a failed flush every byte not yet known to be on
 * disk, and each append among them is refused.
 */
export class JournalWriter {
  readonly file: string;
  /** Bytes in the segment after the last append. */
  size = 0;
  #fd: number | undefined;
  readonly #write: WriteFn;
  readonly #flush: FlushFn;
  /** Bytes known to be on disk. */
  #durable: number;
  /** Appends whose flush has not ended, in the order written. */
  #waiting: Waiter[] = [];
  #flushing = false;
  /** The size the running flush covers. */
  #flushTarget = 0;
  /** close() came while a background flush had the descriptor: it is closed when that ends. */
  #closeAfterFlush = false;
  /** Counts cut-backs: a background flush begun before one proves nothing of what is there now. */
  #cuts = 0;
  /** Why the segment may have lost records already reported on disk: it takes no more. */
  #broken: unknown;
  /** Waiting for the writer to have nothing waiting and no flush running. */
  #drains: (() => void)[] = [];

  private constructor(file: string, fd: number, write: WriteFn, flush: FlushFn, size: number) {
    this.file = file;
    this.#fd = fd;
    this.#write = write;
    this.#flush = flush;
    this.size = size;
    this.#durable = size;
  }

  /**
   * Creates a live segment of host `host` — its first (`part` 0) or, when the
   * host rolls over to a new one, the next. `write` and `flush` stand in for
   * `writeSync` and `fdatasync` in fault-injection tests.
   */
  static create(
    stateRoot: string,
    host: string,
    write: WriteFn = writeSync,
    part = 0,
    flush: FlushFn = journalTuning.flush,
  ): JournalWriter {
    const { live } = journalPaths(stateRoot);
    const file = join(live, `${liveSegmentName(host, part)}`);
    try {
      mkdirSync(live, { recursive: true, mode: 0o700 });
      const fd = openSync(
        file,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL,
        0o600,
      );
      const dir = openSync(live, constants.O_RDONLY);
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
      return new JournalWriter(file, fd, write, flush, 0);
    } catch (e) {
      throw new CoreError("journal_failed", `cannot create the journal segment ${file}`, {
        cause: e,
      });
    }
  }

  /**
   * Opens a lost host's live segment to finish it (the caller holds that
   * host's liveness lock, so it is the only writer), first cutting off an
   * unfinished last line: its write never completed, so nothing acted on it.
   */
  static attach(file: string, tornTailBytes: number): JournalWriter {
    try {
      const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND);
      let size = fstatSync(fd).size;
      if (tornTailBytes > 0) {
        size -= tornTailBytes;
        ftruncateSync(fd, size);
        fsyncSync(fd);
      }
      return new JournalWriter(file, fd, writeSync, fdatasync, size);
    } catch (e) {
      throw new CoreError("journal_failed", `cannot open the journal segment ${file}`, {
        cause: e,
      });
    }
  }

  /**
   * Appends one record; returns once it is on disk. Throws `journal_failed`,
   * and then the file is as it was: a write that failed part-way (a full
   * disk) is cut back off, so no fragment is left for the next record to be
   * glued to.
   */
  append(record: JournalRecord): void {
    this.#place(record);
    try {
      fdatasyncSync(this.#fd!);
    } catch (e) {
      this.#failUnflushed(e);
      throw new CoreError("journal_failed", `cannot append to the journal ${this.file}`, {
        cause: e,
      });
    }
    this.#flushed(this.size);
  }

  /**
   * Appends one record now and resolves once it is on disk, flushed with
   * the records of other calls written meanwhile. A write that fails
   * throws at once, as {@link append} does; a flush that fails rejects
   * every append it would have put on disk (their bytes are cut back off).
   */
  appendGrouped(record: JournalRecord): Promise<void> {
    this.#place(record);
    const end = this.size;
    return new Promise((resolve, reject) => {
      this.#waiting.push({ end, resolve, reject });
      this.#flushSoon();
    });
  }

  /** Whether every record written is known to be on disk and no flush runs: a roll-over may close it then. */
  get idle(): boolean {
    return !this.#flushing && this.#waiting.length === 0;
  }

  /**
   * Whether a flush failed after another had reported its records on disk
   * (two flushes of one file, and the error went to the later): records may
   * be lost that callers were told were written. The writer refuses every
   * append after (its host's calls end `journal_failed` until it restarts).
   */
  get broken(): boolean {
    return this.#broken !== undefined;
  }

  /** Resolves once the writer is {@link idle}. */
  drained(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.#drains.push(resolve));
  }

  /** Flushes what is written and closes the segment; appends still waiting settle first. */
  close(): void {
    if (this.#fd === undefined) return;
    if (this.#waiting.length > 0) {
      try {
        fdatasyncSync(this.#fd);
        this.#flushed(this.size);
      } catch (e) {
        this.#failUnflushed(e);
      }
    }
    if (this.#flushing) this.#closeAfterFlush = true;
    else closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Writes `record`'s line whole, or cuts back what of it was written and throws. */
  #place(record: JournalRecord): void {
    const text = Buffer.from(`${canonicalJson(record as unknown as JsonValue)}\n`);
    if (text.length - 1 > JOURNAL_RECORD_MAX_BYTES)
      throw new CoreError(
        "journal_failed",
        `a journal record would exceed ${JOURNAL_RECORD_MAX_BYTES} bytes`,
      );
    if (this.#fd === undefined)
      throw new CoreError("journal_failed", `the journal ${this.file} is closed`);
    if (this.#broken !== undefined)
      throw new CoreError("journal_failed", `an earlier flush of the journal ${this.file} failed`, {
        cause: this.#broken,
      });
    const fd = this.#fd;
    let before: number | undefined;
    let written = 0;
    try {
      before = fstatSync(fd).size;
      while (written < text.length) written += this.#write(fd, text, written);
      this.size = before + written;
    } catch (e) {
      // The cut-back's flush may be the one told of an earlier write's failure: then
      // nothing past the last good flush is known to be on disk.
      if (written > 0 && before !== undefined && !this.#cutBack(before)) this.#failUnflushed(e);
      throw new CoreError("journal_failed", `cannot append to the journal ${this.file}`, {
        cause: e,
      });
    }
  }

  /** Starts a background flush of everything written, unless one runs: its end starts the next. */
  #flushSoon(): void {
    if (this.#flushing || this.#waiting.length === 0 || this.#fd === undefined) return;
    const fd = this.#fd;
    const began = { target: this.size, cuts: this.#cuts, durable: this.#durable };
    this.#flushTarget = began.target;
    this.#flushing = true;
    try {
      this.#flush(fd, (err) => this.#flushEnded(fd, began, err));
    } catch (e) {
      this.#flushEnded(fd, began, e as Error);
    }
  }

  /** A background flush ended: what it proves, or what its failure takes back. */
  #flushEnded(
    fd: number,
    began: { readonly target: number; readonly cuts: number; readonly durable: number },
    err: Error | null,
  ): void {
    this.#flushing = false;
    if (this.#closeAfterFlush) {
      this.#closeAfterFlush = false;
      try {
        closeSync(fd);
      } catch {}
    }
    if (err !== null) {
      // Another flush already reported part of what this one covered as on disk.
      if (this.#durable > began.durable) this.#broken = err;
      this.#failUnflushed(err);
    } else if (began.cuts === this.#cuts) this.#flushed(began.target);
    this.#flushSoon();
    this.#settleDrains();
  }

  /** Everything up to `end` is on disk: the appends it holds resolve. */
  #flushed(end: number): void {
    this.#durable = Math.max(this.#durable, end);
    while (this.#waiting.length > 0 && this.#waiting[0]!.end <= this.#durable)
      this.#waiting.shift()!.resolve();
    this.#settleDrains();
  }

  #settleDrains(): void {
    if (this.idle) for (const resolve of this.#drains.splice(0)) resolve();
  }

  /**
   * A flush failed: what it covered may or may not be on disk, so every
   * byte past the last good flush is cut back off and each append waiting
   * for it is refused.
   */
  #failUnflushed(cause: unknown): void {
    if (this.size > this.#durable) this.#cutBack(this.#durable);
    const refused = this.#waiting;
    this.#waiting = [];
    for (const w of refused)
      w.reject(new CoreError("journal_failed", `cannot flush the journal ${this.file}`, { cause }));
    this.#settleDrains();
  }

  /**
   * Removes what failed appends wrote (this host is the segment's only
   * writer); says whether that is on disk. A cut that leaves a running
   * flush's range whole does not void its proof.
   */
  #cutBack(to: number): boolean {
    if (this.#flushing && to < this.#flushTarget) this.#cuts++;
    try {
      ftruncateSync(this.#fd!, to);
      this.size = to;
      fdatasyncSync(this.#fd!);
      this.#flushed(to);
      return true;
    } catch {
      return false;
    }
  }
}
