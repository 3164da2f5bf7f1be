// Durable writes into the state directory: a new file synced before it is
// used, and its directory synced after an entry is created or renamed, so
// that what a reader is pointed at survives a crash.
import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** Writes a new file (never an existing one) and syncs it to disk before returning. */
export async function writeDurable(
  path: string,
  data: Uint8Array | string,
  mode = 0o644,
): Promise<void> {
  const fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Syncs a directory, so that the entries created or renamed in it survive a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, constants.O_RDONLY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
