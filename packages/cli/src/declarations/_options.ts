// What a branded CLI is made from, and what it is: the types the CLI's
// files share, kept apart from the code that uses them.

import type { HostBinding } from "@rukh/core";
import type { CliStream } from "../output/index.js";
import type { CliBuiltin } from "./_builtin.js";

/**
 * What a brand's name may be: lower-case letters, digits and `-`, a letter
 * first, at most 64 characters (it is also the completion function's name).
 *
 * @example
 * BRAND_PATTERN.test("acme"); // true
 */
export const BRAND_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * Options of `createCli`.
 *
 * @example
 * const options: CliOptions = { brand: "acme", version: "1.2.0" };
 */
export interface CliOptions {
  /** The command name, lower-case letters, digits and `-` (also the completion function name). */
  readonly brand: string;
  /** Printed by `--version` and in root help. */
  readonly version?: string;
  /** Default state directory when neither `<BRAND>_HOME` nor `--home` is given (default: the XDG location of the brand). */
  readonly stateDir?: string;
  /** Environment read for `<BRAND>_HOME` (`RUKH_HOME` for brand rukh), `XDG_STATE_HOME`, `NO_COLOR`; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout?: CliStream;
  readonly stderr?: CliStream;
  /** Overrides `isTTY` of both streams (JSON indentation, colour). */
  readonly isTTY?: boolean;
  /** The brand's own commands (install, trust, mcp serve…), routed before extension commands. */
  readonly builtins?: readonly CliBuiltin[];
  /** The host binding of CLI calls; defaults: the OS user, actor `"<brand>-cli"`, `"local"`, the owner's default preset. */
  readonly binding?: Partial<HostBinding>;
  /** The complete environment of command processes (the core's `env`; default `{ PATH }`). */
  readonly commandEnv?: Readonly<Record<string, string>>;
  /** Handle SIGINT/SIGTERM while a command runs (default `true`). */
  readonly handleSignals?: boolean;
  /** Working directory of command processes; default `process.cwd()`. */
  readonly cwd?: string;
}

/**
 * A branded CLI. `run` never throws for anything a user typed and never calls
 * `process.exit`; it resolves to the exit code.
 *
 * @example
 * const cli = createCli({ brand: "acme", version: "1.0.0" });
 * process.exitCode = await cli.run(process.argv.slice(2));
 */
export interface Cli {
  run(argv: readonly string[]): Promise<number>;
}
