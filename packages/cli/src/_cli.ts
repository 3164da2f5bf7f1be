import {
  FOREIGN_STATE_VARIABLES,
  stateDirMessage,
  stateDirProblems,
  stateDirVariable,
} from "@rukh/profile/route-cache";

// The branded CLI as one function: a run reads its global flags, runs a
// built-in at once when the words name one, and otherwise routes the line
// through the active revision's table (`_routed.ts`). The rooms below do
// every step; this only wires them.

import { routeLine } from "./_routed.js";
import { BRAND_PATTERN, type Cli, CliError, type CliOptions } from "./declarations/index.js";
import { INTRINSIC } from "./help/index.js";
import {
  type CliStream,
  EXIT_CODES,
  type Globals,
  internal,
  readerSafe,
  type Session,
  shown,
} from "./output/index.js";
import { ownFlags, readGlobals, wantsHelp } from "./parsing/index.js";
import { NO_COMMANDS, RouteIndex, stateDirOf } from "./routes/index.js";
import { runBuiltin } from "./running/index.js";

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
      shown(s, () => `${brand} ${options.version ?? "(unknown version)"}\n`, {
        name: brand,
        version: options.version ?? null,
      });
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
          options,
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
  if (!BRAND_PATTERN.test(brand))
    throw new CliError(
      "invalid_option",
      `brand ${JSON.stringify(brand)} must match ${BRAND_PATTERN}`,
    );
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
