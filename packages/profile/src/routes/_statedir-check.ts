// Whether a state directory can be trusted the way `ssh` trusts its files:
// owned by this user (or root), writable by no one else, and with no link
// in it that the product did not make. Only node:fs and node:path, so the
// CLI's fast path checks it on every command line without loading the
// rest of the profile.

import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/**
 * One reason a state directory is not safe to use: the path, what is wrong
 * with it, and a command that fixes it.
 *
 * @example
 * const p: StateDirProblem = { path: "/home/jane/.local/state/acme", problem: "is writable by group or others (mode 0777)", fix: "chmod go-w '/home/jane/.local/state/acme'" };
 */
export interface StateDirProblem {
  readonly path: string;
  readonly problem: string;
  readonly fix: string;
}

/** Options of {@link stateDirProblems}. */
export interface StateDirCheckOptions {
  /** Walk every file and directory (what `doctor` does); otherwise the entries every command relies on. */
  readonly deep?: boolean;
  /** The user whose state directory it is; this process's effective user by default. */
  readonly uid?: number;
}

/**
 * What every command reads or writes in a state directory: each must be
 * this user's (or root's), writable by no one else, and no link. The store,
 * revisions and the journal's segments below them are read through these.
 */
const RELIED_ON = [
  "active",
  "config.json",
  "revisions",
  "revisions/parts",
  "store",
  "keys",
  "cache",
  "cache/store",
  "cache/docs",
  "cache/confinement.json",
  "tmp",
  "locks",
  "logs",
  "logs/diagnostics.log",
  "journal",
  "journal/live",
  "journal/archive",
  "journal/quarantine",
];
/** Directories whose every entry is checked too: small, and each entry is acted on. */
const LISTED = ["keys", "journal/live", "cache/docs"];

const quote = (p: string) => `'${p.replaceAll("'", "'\\''")}'`;

/**
 * Why a file or directory another user could change is not safe, or
 * undefined: a link, another owner than `uid` or root, or writable by group
 * or others (unless `stickyOk` and it is a sticky, world-writable directory
 * such as `/tmp`, where no one else can rename what is ours).
 *
 * @example
 * ownershipProblem(lstatSync(dir), process.geteuid()); // "is writable by group or others (mode 0777)"
 */
export function ownershipProblem(
  s: Stats,
  uid: number,
  stickyOk = false,
  othersReach = true,
): string | undefined {
  if (s.isSymbolicLink()) return "is a symbolic link";
  if (s.uid !== uid && s.uid !== 0) return `is owned by user ${s.uid}, not by you (${uid}) or root`;
  // Inside a directory no one else may enter, no one else can write, whatever the modes say.
  const writable = othersReach && (s.mode & 0o022) !== 0;
  const sticky = s.isDirectory() && (s.mode & 0o1000) !== 0;
  if (writable && !(stickyOk && sticky))
    return `is writable by group or others (mode ${(s.mode & 0o7777).toString(8).padStart(4, "0")})`;
  return undefined;
}

/**
 * Why an entry inside the state directory is a second door, or undefined:
 * a regular file with another name (a hard link) anyone could reach from
 * outside, or a mount point (what is mounted there comes from elsewhere).
 * `mounted` is where this process's mount namespace has mount points, or
 * undefined where that cannot be read (then a change of device from the
 * parent's is what gives a mount away).
 */
function secondDoor(
  path: string,
  s: Stats,
  mounted: ReadonlySet<string> | undefined,
): StateDirProblem | undefined {
  if (s.isFile() && s.nlink > 1)
    return {
      path,
      problem: `has ${s.nlink} names (hard links): whoever can reach the other one can change it`,
      fix: `cp ${quote(path)} ${quote(`${path}.own`)} && mv ${quote(`${path}.own`)} ${quote(path)}`,
    };
  const mount =
    mounted === undefined ? lstatOrUndefined(dirname(path))?.dev !== s.dev : mounted.has(path);
  if (mount)
    return {
      path,
      problem: "is a mount point: what is mounted there comes from elsewhere",
      fix: `umount ${quote(path)}`,
    };
  return undefined;
}

/** The mount points of this process's mount namespace (Linux), or undefined where there is no list. */
function mountPoints(): Set<string> | undefined {
  let text: string;
  try {
    text = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return undefined;
  }
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    // The fifth field is the mount point, with space, tab, newline and backslash as octal escapes.
    const at = line.split(" ")[4];
    if (at !== undefined)
      out.add(
        at.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))),
      );
  }
  return out;
}

/** The fix of a problem {@link ownershipProblem} named. */
function fixOf(path: string, problem: string, uid: number): string {
  if (problem.startsWith("is a symbolic link")) return `rm ${quote(path)}`;
  if (problem.startsWith("is owned")) return `chown -R ${uid} ${quote(path)}`;
  return `chmod go-w ${quote(path)}`;
}

function problemOf(
  path: string,
  s: Stats,
  o: { uid: number; stickyOk: boolean; othersReach?: boolean },
): StateDirProblem | undefined {
  const problem = ownershipProblem(s, o.uid, o.stickyOk, o.othersReach);
  if (problem === undefined) return undefined;
  return {
    path,
    problem:
      problem === "is a symbolic link"
        ? `${problem}; nothing in a state directory is one`
        : problem,
    fix: fixOf(path, problem, o.uid),
  };
}

/**
 * Why the directory `real` (a real path) and those above it could be
 * changed by another user: each problem with its path and fix.
 *
 * @example
 * const problems = pathProblems(await realpath(dir), process.geteuid());
 */
export function pathProblems(real: string, uid: number): StateDirProblem[] {
  const out: StateDirProblem[] = [];
  for (const dir of ancestors(real)) {
    const p = problemOf(dir, statSync(dir), { uid, stickyOk: true });
    if (p !== undefined) out.push(p);
  }
  const p = problemOf(real, lstatSync(real), { uid, stickyOk: false });
  if (p !== undefined) out.push(p);
  return out;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The directories above `real`, from the file system's root down. */
function ancestors(real: string): string[] {
  const out: string[] = [];
  for (let d = dirname(real); ; d = dirname(d)) {
    out.unshift(d);
    if (dirname(d) === d) return out;
  }
}

/** Every path under `dir`, depth first, without following links. */
function walk(dir: string, out: string[], limit: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (out.length >= limit) return;
    const p = join(dir, name);
    out.push(p);
    if (lstatOrUndefined(p)?.isDirectory()) walk(p, out, limit);
  }
}

/** The most paths a deep check looks at. */
const DEEP_LIMIT = 200_000;

/**
 * Why the state directory `root` cannot be trusted, like `ssh` checks its
 * files: the directories above it must be this user's or root's and
 * writable by no one else (a sticky, world-writable one such as `/tmp` is
 * fine: no one else can rename what is ours in it); the directory itself
 * and everything every command relies on must be this user's (or root's,
 * for a shipped read-only copy), writable by no one else, not links, not a
 * file with a second name (a hard link) and not a mount point.
 * With `deep`, every path in it. Inside a directory that group and others
 * cannot enter (0700, as the product makes it) only owners and links
 * count: no one else can reach a file there to write it. Empty when it does
 * not exist yet (it is made private) or when all is well.
 *
 * @example
 * for (const p of stateDirProblems(root)) console.error(`${p.path} ${p.problem}\n  $ ${p.fix}`);
 */
export function stateDirProblems(
  root: string,
  options: StateDirCheckOptions = {},
): StateDirProblem[] {
  const uid = options.uid ?? process.geteuid?.() ?? 0;
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    return [];
  }
  const problems: StateDirProblem[] = [];
  const add = (p: StateDirProblem | undefined) => {
    if (p !== undefined) problems.push(p);
  };
  problems.push(...pathProblems(real, uid));
  const paths: string[] = [];
  if (options.deep === true) walk(real, paths, DEEP_LIMIT);
  else {
    paths.push(...RELIED_ON.map((r) => join(real, r)));
    for (const dir of LISTED) {
      const at = join(real, dir);
      if (lstatOrUndefined(at)?.isDirectory())
        for (const name of readdirSync(at)) paths.push(join(at, name));
    }
  }
  // A state directory only its owner may enter (0700, as the product makes it) keeps
  // everything in it from other users whatever a umask gave the files inside.
  const othersReach = (statSync(real).mode & 0o011) !== 0;
  const mounted = mountPoints();
  for (const path of paths) {
    const s = lstatOrUndefined(path);
    if (s === undefined) continue;
    add(problemOf(path, s, { uid, stickyOk: false, othersReach }));
    add(secondDoor(path, s, mounted));
  }
  return problems;
}

/**
 * The problems as one message: what is wrong, where, and the commands that
 * fix it (at most five named, then how many more). `what` names the
 * directory (default `state directory`; a host's journal directory is
 * checked the same way).
 *
 * @example
 * throw new Error(stateDirMessage(root, problems));
 */
export function stateDirMessage(
  root: string,
  problems: readonly StateDirProblem[],
  what = "state directory",
): string {
  const shown = problems.slice(0, 5).map((p) => {
    const where = relative(root, p.path);
    const name = where === "" || where.startsWith("..") ? p.path : where;
    return `${name} ${p.problem}\n  fix: $ ${p.fix}`;
  });
  const more = problems.length > 5 ? `\n(and ${problems.length - 5} more)` : "";
  return `the ${what} ${root} is not safe to use: another user could change what it runs or records\n${shown.join("\n")}${more}`;
}
