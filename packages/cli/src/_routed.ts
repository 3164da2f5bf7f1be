// A command line routed through the active revision's route table: the
// table read for the words (refreshed for development links, widened when a
// word names nothing in the part read), then what the words resolve to run,
// shown as help, or refused as a usage error.

import type { CliBuiltin, CliOptions } from "./declarations/index.js";
import { help, INTRINSIC, intrinsics, unknownCommand } from "./help/index.js";
import { internal, type Session, usage } from "./output/index.js";
import { ownFlags, wantsHelp } from "./parsing/index.js";
import {
  focusOf,
  type LoadedTable,
  linkAgain,
  loadTable,
  type Resolution,
  RouteIndex,
} from "./routes/index.js";
import { runBuiltin, runCommand } from "./running/index.js";

/** One command line after its global flags, and what routing it needs. */
export interface CommandLine {
  readonly s: Session;
  readonly options: CliOptions;
  readonly builtins: readonly CliBuiltin[];
  /** The words after the global flags. */
  readonly rest: readonly string[];
  /** The state directory. */
  readonly root: string;
}

/**
 * Routes the words through the active revision's table and runs what they
 * name; `verified` takes the table from the descriptors, not the route
 * cache (what a command line of the cache that fails its digest falls back to).
 */
export async function routeLine(line: CommandLine, verified = false): Promise<number> {
  const read = await focusedTable(line, verified);
  if (typeof read === "number") return read;
  const { focused, table } = read;
  // The command the words name — to run, or for help or completion — is
  // read now: one whose route fails its digest sends every path (not only a
  // run) to the table built from the verified descriptors.
  if (focused.kind === "target" && focused.entry.target.kind === "command")
    try {
      focused.entry.target.load();
    } catch (e) {
      if (verified) throw e;
      return routeLine(line, true);
    }
  return runResolved(line, table);
}

/**
 * The table read for the line's command words, and what they resolve to in
 * it; or the exit code of failing to read it.
 */
async function focusedTable(
  { s, rest, root, builtins }: CommandLine,
  verified: boolean,
): Promise<{ table: IndexedTable; focused: Resolution } | number> {
  const focus = focusOf(rest);
  let t = await indexTable(s, { root, builtins, verified, focus });
  if (typeof t === "number") return t;
  // A development link follows its directory; completion never waits for it,
  // and help only says that it changed: a read-only line never publishes.
  // Whatever published (this refresh or another process's), the line is
  // routed in the revision that is active now, which the call then pins.
  if ((t.loaded.table.dev?.size ?? 0) > 0 && rest[0] !== "__complete") {
    const readOnly = s.g.help || wantsHelp(rest) || rest.length === 0;
    const now = await linkAgain(s.stderr, root, !readOnly);
    if (now !== undefined && now !== t.loaded.revisionId) {
      t = await indexTable(s, { root, builtins, verified, focus });
      if (typeof t === "number") return t;
    }
  }
  let focused = t.index.resolve(focus);
  // Words that name nothing in the part of the table read for them are
  // looked up (and suggested from) in the whole table.
  if (focused.kind === "unknown" && t.loaded.partial) {
    t = await indexTable(s, { root, builtins, verified });
    if (typeof t === "number") return t;
    focused = t.index.resolve(focus);
  }
  return { table: t, focused };
}

/** Runs, shows help for, or refuses what the line's words resolve to in `table`. */
async function runResolved(line: CommandLine, { loaded, index }: IndexedTable): Promise<number> {
  const { s, options, rest, root } = line;
  const { brand } = s;
  const handleSignals = options.handleSignals !== false;
  const r = index.resolve(rest);
  // A line that only shows the routes (help, completion, a listing; not a
  // built-in's run, which may publish, nor a command's) records the route
  // cache as checked the first time, so that the next ones hash nothing.
  const shows =
    r.kind !== "target" ||
    s.g.help ||
    wantsHelp(rest.slice(r.words)) ||
    (r.entry.target.kind === "builtin" && INTRINSIC.has(r.entry.path[0]!));
  if (shows) loaded.remember?.();
  if (r.kind === "root") {
    if (rest.length > 0 && !s.g.help)
      return usage(s, `unexpected ${rest[0]} before a command`, [brand, "--help"]);
    return help(s, index, []);
  }
  if (r.kind === "unknown") return unknownCommand(s, index, r.typed);
  const after = rest.slice(r.words);
  if (r.kind === "group") {
    // The CLI's own flags after a group (`acme files --json`) still show its help, as they ask.
    const own = after.filter((w) => w !== "--json" && w !== "--no-color");
    s.g.json ||= after.includes("--json");
    s.g.noColor ||= after.includes("--no-color");
    if (s.g.help || wantsHelp(after) || own.length === 0)
      return help(s, index, rest.slice(0, r.words));
    return usage(
      s,
      `"${brand} ${r.group.path.join(" ")}" is a group; expected one of its commands, not ${JSON.stringify(own[0])}`,
      [brand, ...r.group.path, "--help"],
    );
  }
  const entry = r.entry;
  // Help asked for after the path, with --json there too, is a result envelope
  // (a passthrough program's words after its path are its own).
  const helpFor = (passthrough = false) => {
    s.command = entry.path;
    if (!passthrough) s.g.json ||= ownFlags(after).includes("--json");
    return help(s, index, entry.path);
  };
  if (entry.target.kind === "builtin") {
    if (s.g.help || wantsHelp(after)) return helpFor();
    return runBuiltin(s, {
      builtin: entry.target.builtin,
      path: entry.path,
      after,
      stateDir: root,
      handleSignals,
      options,
    });
  }
  // Loaded above (a target is resolved from the same words): no second read.
  const route = entry.target.load();
  // A passthrough program owns every word after its path, --help included.
  if (s.g.help || (!route.cli.passthrough && wantsHelp(after)))
    return helpFor(route.cli.passthrough === true);
  // Only a command run loads what running needs (the core among it).
  return runCommand(s, {
    options,
    route,
    after,
    root,
    revisionId: loaded.revisionId,
    published: entry.target.published(),
  });
}

/** Which route table {@link indexTable} reads, and what it indexes with it. */
export interface TableRead {
  /** The state directory. */
  readonly root: string;
  readonly builtins: readonly CliBuiltin[];
  /** From the descriptors, never the route cache. */
  readonly verified: boolean;
  /** Only what resolving these command words needs. */
  readonly focus?: readonly string[];
}

/** A route table and its index. */
export interface IndexedTable {
  readonly loaded: LoadedTable;
  readonly index: RouteIndex;
}

/**
 * The route table (see {@link loadTable}) indexed with the intrinsics and
 * `builtins`, or the exit code of failing to read it.
 */
export async function indexTable(
  s: Session,
  { root, builtins, verified, focus }: TableRead,
): Promise<IndexedTable | number> {
  let loaded: LoadedTable;
  try {
    loaded = await loadTable(root, verified, focus);
  } catch (e) {
    return internal(s, `cannot read the profile in ${root}: ${(e as Error).message}`);
  }
  const index: RouteIndex = new RouteIndex(loaded.table, [
    ...intrinsics(s, root, () => index),
    ...builtins,
  ]);
  return { loaded, index };
}
