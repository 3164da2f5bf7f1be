// Reading a state-directory file whole, never more than a bound: what the
// reader gets is at most `max` bytes, however large the file is or grows.

import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * The whole file; `undefined` when it does not exist; `"large"` when it is
 * larger than `max` bytes, or grows while it is read (never more than
 * `max + 1` bytes are read).
 */
export function readBounded(file: string, max: number): Buffer | undefined | "large" {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    if (size > max) return "large";
    const buf = Buffer.allocUnsafe(size + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n === buf.length) return "large";
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
