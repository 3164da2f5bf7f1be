// Where keygen writes a key pair: the folder `--out` names, made for its
// owner alone when it is missing, or a usage error that names the path in
// the way and what was expected.

import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { UsageError } from "../kit/index.js";

/** Why the file system refused, in words; `undefined` for what is no fault of the path. */
export function deniedBecause(code: string | undefined): string | undefined {
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "read-only file system";
  return undefined;
}

/** The nearest of `dir` and its parents that exists, or `undefined` when none can be seen. */
function nearestExisting(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    try {
      statSync(at);
      return at;
    } catch {
      if (dirname(at) === at) return undefined;
    }
  }
}

/**
 * Makes the absolute folder `dir` (and any missing folder above it) with
 * mode 0700 whatever the umask; an existing folder is left as it is. `shown`
 * is the `--out` value as typed, which messages quote.
 *
 * @throws UsageError when a path in the way is no folder or cannot be written.
 */
export function keyFolder(dir: string, shown: string): void {
  const intro = `--out ${shown}:`;
  let first: string | undefined;
  try {
    first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const denied = deniedBecause(code);
    if (denied !== undefined)
      throw new UsageError(
        `${intro} cannot make ${dir}: ${denied}; expected a folder you can write to`,
      );
    if (code === "EEXIST" || code === "ENOTDIR") {
      const inWay = nearestExisting(dir) ?? dir;
      throw new UsageError(
        `${intro} ${inWay} is not a directory; expected a directory for the keys (or a path where one can be made)`,
      );
    }
    throw e;
  }
  if (first === undefined) {
    if (!statSync(dir).isDirectory())
      throw new UsageError(`${intro} ${dir} is not a directory; expected a directory for the keys`);
    return;
  }
  // mkdir's mode passes through the umask: each folder made here is set to 0700 itself.
  const made = relative(first, dir);
  let at = first;
  chmodSync(at, 0o700);
  for (const part of made === "" ? [] : made.split(sep)) {
    at = join(at, part);
    chmodSync(at, 0o700);
  }
}
