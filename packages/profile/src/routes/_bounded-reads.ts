// Reading state-directory files synchronously, never more than a bound: a
// whole file (`readFileAtMost`), its first line, a range of it. What the
// reader gets is at most `max` bytes, however large the file is or grows.

import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * The whole file; `undefined` when it does not exist; `"large"` when it is
 * larger than `max` bytes, or grows while it is read (never more than
 * `max + 1` bytes are read).
 *
 * @example
 * const bytes = readFileAtMost(join(root, "active"), 128);
 * if (bytes === "large") throw new Error("active is too long");
 */
export function readFileAtMost(file: string, max: number): Buffer | undefined | "large" {
  return withFile(file, max, (fd, size) => {
    const buf = Buffer.allocUnsafe(size + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n === buf.length) return "large";
    }
    return buf.subarray(0, n);
  });
}

/**
 * `read(fd, size)` on the open file; `undefined` when it does not exist,
 * `"large"` when it is larger than `max` bytes. The file is closed after.
 */
function withFile<T>(
  file: string,
  max: number,
  read: (fd: number, size: number) => T,
): T | undefined | "large" {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    return size > max ? "large" : read(fd, size);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's first line (without its newline) and the file's size, reading no
 * further than the line's end (in 64 KiB steps); `undefined` when the file
 * does not exist; `"large"` when the file is larger than `max` bytes;
 * `"unterminated"` when it holds no newline.
 */
export function readFirstLine(
  file: string,
  max: number,
): { readonly line: Buffer; readonly size: number } | undefined | "large" | "unterminated" {
  return withFile(file, max, (fd, size) => {
    let buf = Buffer.allocUnsafe(Math.min(size, 65_536));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n >= size) return "unterminated";
        const grown = Buffer.allocUnsafe(Math.min(size, buf.length * 2));
        buf.copy(grown, 0, 0, n);
        buf = grown;
      }
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) return "unterminated";
      const nl = buf.indexOf(10, n);
      n += got;
      if (nl !== -1 && nl < n) return { line: buf.subarray(0, nl), size };
    }
  });
}

/** `length` bytes of a file from `position`; fewer when the file is shorter. */
export function readRange(file: string, position: number, length: number): Buffer {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(length);
    let n = 0;
    while (n < length) {
      const got = readSync(fd, buf, n, length - n, position + n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
