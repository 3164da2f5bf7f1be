import { realpathSync, type Stats, statSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";

/**
 * Where a helper program of the confinement was found and may be run, or why
 * it may not. A program is trusted by where it is, never by PATH.
 */
export type TrustedProgram =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string };

const GROUP_OR_OTHER_WRITE = 0o022;

function ownerOk(st: Stats, uid: number): boolean {
  return st.uid === 0 || st.uid === uid;
}

/**
 * Checks that `path` is an executable regular file that only root or `uid`
 * could have put there: it, and every directory above its real location, is
 * owned by root or `uid` and writable by neither group nor others. Returns the
 * real path to execute, so a symlink cannot be swapped after the check.
 */
export function checkTrustedProgram(path: string, uid: number): TrustedProgram {
  if (!isAbsolute(path)) return { ok: false, reason: `${path} is not an absolute path` };
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return { ok: false, reason: `${path} does not exist` };
  }
  let st = statSync(real);
  if (!st.isFile()) return { ok: false, reason: `${real} is not a regular file` };
  if ((st.mode & 0o111) === 0) return { ok: false, reason: `${real} is not executable` };
  for (let p = real; ; p = dirname(p)) {
    st = statSync(p);
    if (!ownerOk(st, uid))
      return {
        ok: false,
        reason: `${p} is owned by uid ${st.uid}, not by root or the invoking user (uid ${uid})`,
      };
    // A sticky, world-writable directory (/tmp) still lets others plant files in it.
    if ((st.mode & GROUP_OR_OTHER_WRITE) !== 0)
      return { ok: false, reason: `${p} is writable by group or others` };
    if (p === dirname(p)) break;
  }
  return { ok: true, path: real };
}

/**
 * The first candidate that exists, checked with {@link checkTrustedProgram};
 * when none exists, the reason names them all.
 */
export function locateTrustedProgram(
  candidates: readonly string[],
  uid: number,
  what: string,
): TrustedProgram {
  for (const c of candidates) {
    try {
      statSync(c);
    } catch {
      continue;
    }
    return checkTrustedProgram(c, uid);
  }
  return { ok: false, reason: `${what} is not installed (looked for ${candidates.join(", ")})` };
}
