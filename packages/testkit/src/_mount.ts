import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

/** A read-only bind mount, undone by `release`. */
export interface ReadOnlyMount {
  release(): void;
}

const run = (args: readonly string[]) =>
  spawnSync("mount", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/**
 * Mounts `source` read-only at `at` (created if missing): what a replica's
 * shipped state directory looks like to every process, root included.
 * Returns why not instead when this process may not mount (not root, or a
 * container that refuses it), so a suite can skip and say so.
 *
 * @example
 * const m = mountReadOnly(root, join(work, "ro"));
 * if (typeof m === "string") console.log(`skipped: ${m}`); else try { … } finally { m.release(); }
 */
export function mountReadOnly(source: string, at: string): ReadOnlyMount | string {
  if (process.getuid?.() !== 0) return "only root can bind-mount a directory read-only";
  mkdirSync(at, { recursive: true });
  const bind = run(["--bind", source, at]);
  if (bind.status !== 0) return `mount --bind is refused here: ${bind.stderr.trim()}`;
  const ro = run(["-o", "remount,bind,ro", at]);
  if (ro.status !== 0) {
    spawnSync("umount", [at]);
    return `mount -o remount,bind,ro is refused here: ${ro.stderr.trim()}`;
  }
  return { release: () => void spawnSync("umount", [at]) };
}

/**
 * Fills the file system `dir` is on with one file, `dir/filler`, until a
 * write fails for want of room (any other failure is thrown); returns its
 * path, to remove when room should come back. For the full-disk suites,
 * on a small tmpfs of their own.
 *
 * @example
 * const filler = fillFileSystem(mountPoint); … rmSync(filler);
 */
export function fillFileSystem(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(4096, 0x78);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOSPC") throw e;
  } finally {
    closeSync(fd);
  }
  return path;
}
