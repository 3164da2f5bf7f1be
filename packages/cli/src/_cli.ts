import {
  FOREIGN_STATE_VARIABLES,
  stateDirMessage,
  stateDirProblems,
  stateDirVariable,
} from "@rukh/profile/route-cache";
import { CliError } from "./_errors.js";
import { EXIT_CODES } from "./_exit.js";
import { stateDirOf } from "./_fastpath.js";
import { readGlobals } from "./_globals.js";
import { INTRINSIC } from "./_intrinsics.js";
import { wantsHelp } from "./_lexer.js";
import type { Cli, CliOptions } from "./_options.js";
import { routeLine } from "./_routed.js";
import { RouteIndex } from "./_routes.js";
import { runBuiltin } from "./_run-builtin.js";
import {
  type CliStream,
  type Globals,
  internal,
  ownFlags,
  readerSafe,
  type Session,
} from "./_session.js";
import { NO_COMMANDS } from "./_table.js";

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
  checkOptions(options);
  const { brand } = options;
  const builtins = options.builtins ?? [];
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
    command: null,
  });

  async function run(argv: readonly string[]): Promise<number> {
    const s = session({ help: false, version: false, json: false, noColor: false });
    try {
      keepOthersOut();
      return await dispatch(s, argv);
    } catch (e) {
      // Anything unexpected (an unreadable state directory, a bug) is exit 5, never a stack trace.
      return internal(s, (e as Error)?.message ?? String(e));
    }
  }

  async function dispatch(s: Session, argv: readonly string[]): Promise<number> {
    const rest = readGlobals(s, argv);
    if (typeof rest === "number") return rest;
    if (s.g.version && rest.length === 0 && !s.g.help) {
      stdout.write(`${brand} ${options.version ?? "(unknown version)"}\n`);
      return EXIT_CODES.success;
    }
    const root = stateDirOf(brand, s.env, s.g.home ?? options.stateDir);
    // A built-in command shadows every extension path it prefixes, so it runs
    // without reading the route table at all.
    const own = new RouteIndex(NO_COMMANDS, builtins).resolve(rest);
    const builtin =
      own.kind === "target" && own.entry.target.kind === "builtin"
        ? own.entry.target.builtin
        : undefined;
    const after = own.kind === "target" ? rest.slice(own.words) : [];
    if (builtin !== undefined) {
      // Its --json after its path counts for a refusal of the state directory too.
      s.command = own.kind === "target" ? own.entry.path : null;
      s.g.json ||= ownFlags(after).includes("--json");
    }
    // Like ssh with its files: a state directory another user can change is never used.
    const unsafe = builtin?.checksStateItself === true ? [] : stateDirProblems(root);
    if (unsafe.length > 0) return internal(s, stateDirMessage(root, unsafe));
    if (builtin !== undefined && own.kind === "target") {
      if (!s.g.help && !wantsHelp(after))
        return runBuiltin(s, {
          builtin,
          path: own.entry.path,
          after,
          stateDir: root,
          handleSignals: options.handleSignals !== false,
        });
    }
    return routeLine({ s, options, builtins, rest, root });
  }

  return { run };
}

/**
 * Adds group and other write to the umask (022 at least), as ssh-keygen
 * tightens its own: whatever the user's umask (002 is common), nothing the
 * CLI writes in its state directory is writable by anyone else, so the
 * state directory's own check never refuses what the CLI made.
 */
function keepOthersOut(): void {
  const old = process.umask(0o022);
  process.umask(old | 0o022);
}

/** Throws for a brand the CLI cannot take, or a built-in that collides with an intrinsic command. */
function checkOptions({ brand, builtins = [] }: CliOptions): void {
  if (!BRAND.test(brand))
    throw new CliError("invalid_option", `brand ${JSON.stringify(brand)} must match ${BRAND}`);
  if (FOREIGN_STATE_VARIABLES.has(stateDirVariable(brand)))
    throw new CliError(
      "invalid_option",
      `brand ${JSON.stringify(brand)} would keep its state where ${stateDirVariable(brand)} points, which another tool owns; choose another name`,
    );
  for (const b of builtins)
    if (b.path.length === 0 || INTRINSIC.has(b.path[0]!))
      throw new CliError(
        "builtin_conflict",
        `built-in "${b.path.join(" ")}" collides with a command the CLI provides itself (${[...INTRINSIC].join(", ")})`,
      );
}
