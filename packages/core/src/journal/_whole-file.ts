// A small file written whole or not at all, private to this user: what the
// journal keeps beside its segments (kept results, task records).

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** A private temporary file beside `file` holding `text`, written but not yet flushed. */
function writeTemporary(file: string, text: string): { fd: number; tmp: string } {
  const dir = join(file, "..");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${randomBytes(8).toString("hex")}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    const bytes = Buffer.from(text);
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
  } catch (e) {
    abandon(fd, tmp);
    throw e;
  }
  return { fd, tmp };
}

/**
 * The temporary file is flushed: it replaces `file`. Its descriptor is
 * closed once, whatever happens (a second close could reach a descriptor
 * another open got meanwhile).
 */
function replace(fd: number, tmp: string, file: string): void {
  try {
    closeSync(fd);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function abandon(fd: number, tmp: string): void {
  try {
    closeSync(fd);
  } catch {}
  rmSync(tmp, { force: true });
}

/** Writes `text` to `file` whole or not at all: a private temporary file, flushed, renamed over. */
export function writeWhole(file: string, text: string): void {
  const { fd, tmp } = writeTemporary(file, text);
  try {
    fdatasyncSync(fd);
  } catch (e) {
    abandon(fd, tmp);
    throw e;
  }
  replace(fd, tmp, file);
}

/**
 * {@link writeWhole}, its flush run off the event loop: the host goes on
 * with other calls while the disk takes the file, and the promise settles
 * once `file` is replaced.
 */
export async function writeWholeSoon(file: string, text: string): Promise<void> {
  const { fd, tmp } = writeTemporary(file, text);
  try {
    await new Promise<void>((resolve, reject) =>
      fdatasync(fd, (err) => (err === null ? resolve() : reject(err))),
    );
  } catch (e) {
    abandon(fd, tmp);
    throw e;
  }
  replace(fd, tmp, file);
}
