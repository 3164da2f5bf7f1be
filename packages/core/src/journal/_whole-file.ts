// A small file written whole or not at all, private to this user: what the
// journal keeps beside its segments (kept results, task records).

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fdatasyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** Writes `text` to `file` whole or not at all: a private temporary file, flushed, renamed over. */
export function writeWhole(file: string, text: string): void {
  const dir = join(file, "..");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${randomBytes(8).toString("hex")}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    const bytes = Buffer.from(text);
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
    fdatasyncSync(fd);
    closeSync(fd);
    renameSync(tmp, file);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {}
    rmSync(tmp, { force: true });
    throw e;
  }
}
