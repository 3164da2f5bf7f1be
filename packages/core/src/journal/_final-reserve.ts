// Room set aside on disk for the finals a host owes, so that a call's final
// is on disk before its outcome is delivered even when the disk fills up
// while the call runs.

import {
  closeSync,
  constants,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { CoreError, JOURNAL_RECORD_MAX_BYTES } from "../contract/index.js";

/** Bytes set aside per final: the largest record there is (a file system gives back whole pages). */
export const FINAL_RESERVE_SLOT_BYTES = JOURNAL_RECORD_MAX_BYTES;

/** The reserve file of a host, beside its live segments: `<host>.reserve`. */
export function reserveFile(liveDir: string, host: string): string {
  return join(liveDir, `${host}.reserve`);
}

/** Whether an error (or the cause it wraps) says that the file system is out of room. */
export function isOutOfSpace(e: unknown): boolean {
  for (let err = e as { code?: string; cause?: unknown } | undefined; err; ) {
    if (err.code === "ENOSPC" || err.code === "EDQUOT") return true;
    err = err.cause as typeof err;
  }
  return false;
}

/**
 * A file of zeros, {@link FINAL_RESERVE_SLOT_BYTES} per slot, written and
 * flushed so the file system has allocated it. A host grows it before it
 * journals a start (one slot per call in flight, and a few spare for
 * refusals); when an append of a final finds the disk full, the host gives
 * back one slot (truncating and flushing, which on journaling file systems
 * also commits the freed blocks) and tries again. The disk's other writers
 * may take the freed room first: then the next slot is given back.
 *
 * @example
 * const reserve = FinalReserve.create(liveDir, host);
 * reserve.ensure(5); // throws journal_failed when the disk cannot hold it
 * if (!reserve.release()) owe(final);
 */
export class FinalReserve {
  readonly file: string;
  #fd: number | undefined;
  #slots = 0;

  private constructor(file: string, fd: number) {
    this.file = file;
    this.#fd = fd;
  }

  /** Opens (emptied) the reserve of `host` in `liveDir`, which exists. */
  static create(liveDir: string, host: string): FinalReserve {
    const file = reserveFile(liveDir, host);
    try {
      const fd = openSync(
        file,
        constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
        0o600,
      );
      return new FinalReserve(file, fd);
    } catch (e) {
      throw new CoreError("journal_failed", `cannot create the journal's reserve ${file}`, {
        cause: e,
      });
    }
  }

  /** Slots set aside now. */
  get slots(): number {
    return this.#slots;
  }

  /**
   * Makes sure at least `slots` slots are set aside, growing to `slots` plus
   * `headroom` so that a host at steady concurrency writes nothing per call.
   * Throws `journal_failed` when the disk cannot hold `slots`; what could be
   * written is kept.
   */
  ensure(slots: number, headroom = 0): void {
    if (slots <= this.#slots) return;
    if (this.#fd === undefined)
      throw new CoreError("journal_failed", `the journal's reserve ${this.file} is closed`);
    const fd = this.#fd;
    const zeros = Buffer.alloc(FINAL_RESERVE_SLOT_BYTES);
    try {
      while (this.#slots < slots + headroom) {
        let off = 0;
        while (off < zeros.length)
          off += writeSync(fd, zeros, off, zeros.length - off, this.#slots * zeros.length + off);
        this.#slots++;
      }
      fdatasyncSync(fd);
    } catch (e) {
      // Keep whole slots only; a part-written one is cut off.
      this.#cut(this.#slots);
      if (this.#slots < slots)
        throw new CoreError(
          "journal_failed",
          `cannot set aside room for ${slots} journal records in ${this.file}`,
          { cause: e },
        );
    }
  }

  /** Gives one slot back to the file system; false when none is left. */
  release(): boolean {
    if (this.#slots === 0 || this.#fd === undefined) return false;
    this.#slots--;
    this.#cut(this.#slots);
    return true;
  }

  #cut(slots: number): void {
    if (this.#fd === undefined) return;
    try {
      ftruncateSync(this.#fd, slots * FINAL_RESERVE_SLOT_BYTES);
      fsyncSync(this.#fd);
    } catch {}
  }

  /** Closes and deletes the reserve: everything in it goes back to the file system. */
  remove(): void {
    if (this.#fd !== undefined) {
      closeSync(this.#fd);
      this.#fd = undefined;
    }
    this.#slots = 0;
    try {
      unlinkSync(this.file);
    } catch {}
  }
}
