import { FOREIGN_STATE_VARIABLES, stateDirVariable } from "@rukh/profile/route-cache";
import { refreshDevLinks } from "./_devlinks.js";
import { CliError } from "./_errors.js";
import { EXIT_CODES } from "./_exit.js";
import { stateDirOf } from "./_fastpath.js";
import { help, INTRINSIC } from "./_intrinsics.js";
import { wantsHelp } from "./_lexer.js";
import type { Cli, CliOptions } from "./_options.js";
import { type CliBuiltin, RouteIndex } from "./_routes.js";
import { runBuiltin } from "./_run-builtin.js";
import {
  type CliStream,
  type Globals,
  readerSafe,
  type Session,
  unknownCommand,
  usage,
} from "./_session.js";
import { focusOf, indexTable, NO_COMMANDS } from "./_table.js";

const BRAND = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * Creates a branded CLI over the active profile revision: routes, groups and
 * aliases from the cached route table, generated help, exact typed parsing,
 * output and documented exit codes (docs/cli.md).
 *
 * @example
 * const cli = createCli({ brand: "acme", version: "1.0.0", builtins: [{ path: ["install"], summary: "Install a package", run: install }] });
 * process.exitCode = await cli.run(process.argv.slice(2));
 */
export function createCli(options: CliOptions): Cli {
  const { brand } = options;
  if (!BRAND.test(brand))
    throw new CliError("invalid_option", `brand ${JSON.stringify(brand)} must match ${BRAND}`);
  if (FOREIGN_STATE_VARIABLES.has(stateDirVariable(brand)))
    throw new CliError(
      "invalid_option",
      `brand ${JSON.stringify(brand)} would keep its state where ${stateDirVariable(brand)} points, which another tool owns; choose another name`,
    );
  const builtins = options.builtins ?? [];
  for (const b of builtins)
    if (b.path.length === 0 || INTRINSIC.has(b.path[0]!))
      throw new CliError(
        "builtin_conflict",
        `built-in "${b.path.join(" ")}" collides with a command the CLI provides itself (${[...INTRINSIC].join(", ")})`,
      );
  const stdout: CliStream = options.stdout ?? readerSafe(process.stdout);
  const stderr: CliStream = options.stderr ?? readerSafe(process.stderr);
  const session = (g: Globals): Session => ({
    brand,
    version: options.version,
    env: options.env ?? process.env,
    stdout,
    stderr,
    outTTY: options.isTTY ?? stdout.isTTY === true,
    errTTY: options.isTTY ?? stderr.isTTY === true,
    g,
  });

  async function run(argv: readonly string[]): Promise<number> {
    try {
      return await dispatch(argv);
    } catch (e) {
      // Anything unexpected (an unreadable state directory, a bug) is exit 5, never a stack trace.
      stderr.write(`error: ${(e as Error)?.message ?? String(e)}\n`);
      return EXIT_CODES.internal;
    }
  }

  /** The flags before the command path, and the words after them; a number is a usage error's exit code. */
  function globals(s: Session, argv: readonly string[]): readonly string[] | number {
    const g = s.g;
    let i = 0;
    for (; i < argv.length && argv[i]!.startsWith("-"); i++) {
      const t = argv[i]!;
      if (t === "--help" || t === "-h") g.help = true;
      else if (t === "--version" || t === "-V") g.version = true;
      else if (t === "--json") g.json = true;
      else if (t === "--no-color") g.noColor = true;
      else if (t === "--home" && i + 1 < argv.length) g.home = argv[++i]!;
      else if (t.startsWith("--home=")) g.home = t.slice(7);
      else
        return usage(
          s,
          t === "--home"
            ? "--home needs a value; expected --home <dir>"
            : `unknown flag ${t} before the command; expected one of --help, --version, --json, --home <dir>, --no-color`,
          [brand, "--help"],
        );
    }
    return argv.slice(i);
  }

  async function dispatch(argv: readonly string[]): Promise<number> {
    const s = session({ help: false, version: false, json: false, noColor: false });
    const rest = globals(s, argv);
    if (typeof rest === "number") return rest;
    if (s.g.version && rest.length === 0 && !s.g.help) {
      stdout.write(`${brand} ${options.version ?? "(unknown version)"}\n`);
      return EXIT_CODES.success;
    }
    const root = stateDirOf(brand, s.env, s.g.home ?? options.stateDir);
    const handleSignals = options.handleSignals !== false;
    // A built-in command shadows every extension path it prefixes, so it runs
    // without reading the route table at all.
    const own = new RouteIndex(NO_COMMANDS, builtins).resolve(rest);
    if (own.kind === "target" && own.entry.target.kind === "builtin") {
      const after = rest.slice(own.words);
      if (!s.g.help && !wantsHelp(after))
        return runBuiltin(s, own.entry.target.builtin, own.entry.path, after, root, handleSignals);
    }
    return routed(s, rest, root, false);
  }

  /**
   * Routes the words through the active revision's table and runs what they
   * name; `verified` takes the table from the descriptors, not the route
   * cache (what a command line of the cache that fails its digest falls back to).
   */
  async function routed(
    s: Session,
    rest: readonly string[],
    root: string,
    verified: boolean,
  ): Promise<number> {
    const handleSignals = options.handleSignals !== false;
    const focus = focusOf(rest);
    let t = await indexTable(s, root, builtins, verified, focus);
    if (typeof t === "number") return t;
    // A development link follows its directory; completion never waits for it.
    // Whatever published (this refresh or another process's), the line is
    // routed in the revision that is active now, which the call then pins.
    if ((t.loaded.table.dev?.size ?? 0) > 0 && rest[0] !== "__complete") {
      const now = await refreshDevLinks(s, root);
      if (now !== undefined && now !== t.loaded.revisionId) {
        t = await indexTable(s, root, builtins, verified, focus);
        if (typeof t === "number") return t;
      }
    }
    let focused = t.index.resolve(focus);
    // Words that name nothing in the part of the table read for them are
    // looked up (and suggested from) in the whole table.
    if (focused.kind === "unknown" && t.loaded.partial) {
      t = await indexTable(s, root, builtins, verified);
      if (typeof t === "number") return t;
      focused = t.index.resolve(focus);
    }
    const { loaded, index } = t;
    // The command the words name — to run, or for help or completion — is
    // read now: one whose route fails its digest sends every path (not only a
    // run) to the table built from the verified descriptors.
    if (focused.kind === "target" && focused.entry.target.kind === "command")
      try {
        focused.entry.target.load();
      } catch (e) {
        if (verified) throw e;
        return routed(s, rest, root, true);
      }
    const r = index.resolve(rest);
    if (r.kind === "root") {
      if (rest.length > 0 && !s.g.help)
        return usage(s, `unexpected ${rest[0]} before a command`, [brand, "--help"]);
      return help(s, index, []);
    }
    if (r.kind === "unknown") return unknownCommand(s, index, r.typed);
    const after = rest.slice(r.words);
    if (r.kind === "group") {
      if (s.g.help || wantsHelp(after) || after.length === 0)
        return help(s, index, rest.slice(0, r.words));
      return usage(
        s,
        `"${brand} ${r.group.path.join(" ")}" is a group; expected one of its commands, not ${JSON.stringify(after[0])}`,
        [brand, ...r.group.path, "--help"],
      );
    }
    const entry = r.entry;
    if (entry.target.kind === "builtin") {
      if (s.g.help || wantsHelp(after)) return help(s, index, entry.path);
      return runBuiltin(s, entry.target.builtin, entry.path, after, root, handleSignals);
    }
    // Loaded above (a target is resolved from the same words): no second read.
    const route = entry.target.load();
    // A passthrough program owns every word after its path, --help included.
    if (s.g.help || (!route.cli.passthrough && wantsHelp(after))) return help(s, index, entry.path);
    // Only a command run loads what running needs (the core among it).
    const { runCommand } = await import("./_run-command.js");
    return runCommand(s, options, route, after, root, loaded.revisionId, entry.target.published());
  }

  return { run };
}
