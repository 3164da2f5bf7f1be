// What a brand's own command is: its declaration (path, summary,
// description, typed inputs), how it shows in help and completion, and the
// function that runs it with what it receives.

import type { InputValue } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";

/**
 * A command the brand itself provides (install, trust, mcp serve…); routed
 * like an extension command, never an MCP tool.
 *
 * @example
 * const install: CliBuiltin = {
 *   path: ["install"], summary: "Install an extension package", usage: "<package>",
 *   run: async ({ args, stateDir }) => { await new StateDirectory(stateDir).install(args[0]!); return 0; },
 * };
 */
export interface CliBuiltin {
  /** Words of the command path, e.g. `["mcp", "serve"]`. */
  readonly path: readonly string[];
  readonly summary: string;
  readonly description?: string;
  /** What follows the path in the usage line, e.g. `"<package> [--force]"`. */
  readonly usage?: string;
  /** Hidden from help and completion (still routed). */
  readonly hidden?: boolean;
  /**
   * Runs even when the state directory fails its safety check (every other
   * command line is refused first): for a diagnostic such as `doctor` that
   * reports the problems itself and acts on nothing while they last.
   */
  readonly checksStateItself?: boolean;
  /**
   * Typed inputs, each written as a descriptor writes an input. With them
   * the built-in's path, summary, description and inputs are a command
   * declaration, checked by `validateCommandDeclarations` of
   * @rukh/descriptor and read by the same lexer, decoder, help and
   * completion as extension commands; `run` then gets the checked values as
   * `inputs`. Without them, `run` gets the raw words in `args`.
   */
  readonly inputs?: readonly JsonObject[];
  /**
   * Whether a run changes the owner's state (the profile, trust, presets,
   * launches): `true`, or a function of the checked inputs for a command
   * that only sometimes does (`mcp launches --revoke`). Such a run passes
   * the core's admission for built-ins (the CLI, the owner's own authority)
   * and is journaled like an extension command's call, its outcome judged
   * from the exit code and the revision it published (`onPublished`).
   * Needs `inputs`.
   */
  readonly changesState?: boolean | ((inputs: Readonly<Record<string, InputValue>>) => boolean);
  /** Completion candidates for an input's values (extension ids, presets…), asked when completing. */
  suggest?(inputId: string, stateDir: string): Promise<readonly string[]> | readonly string[];
  /**
   * Runs the command with every word after its path, unparsed, and returns
   * the exit code. `--help`/`-h` among the arguments shows the generated help
   * instead of calling it.
   */
  run(context: BuiltinContext): Promise<number> | number;
}

/**
 * What a built-in receives.
 *
 * @example
 * const run = ({ args, stdout }: BuiltinContext) => { stdout.write(`${args.length} arguments\n`); return 0; };
 */
export interface BuiltinContext {
  /** The words after the built-in's path, exactly as given (less `--json`/`--no-color`). */
  readonly args: readonly string[];
  /** A declared built-in's checked input values, defaults applied; `{}` for one without `inputs`. */
  readonly inputs: Readonly<Record<string, InputValue>>;
  /** The resolved state directory. */
  readonly stateDir: string;
  /** `--json` was given (before or after the command path): print the envelope (`outputEnvelope`). */
  readonly json: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /**
   * stdout is a terminal: what the built-in prints from outside is escaped
   * there (`terminalText`, and `printEnvelope` escapes its envelope).
   */
  readonly outTTY?: boolean;
  /** Aborted on SIGINT/SIGTERM while the built-in runs. */
  readonly signal: AbortSignal;
  /** The built-in's own path (`["ext", "install"]`). */
  readonly path: readonly string[];
  /**
   * For a run that changes state (`changesState`): tell it each profile
   * revision the run publishes, so its journal record names what it
   * changed — pass it as a `StateDirectory`'s `onPublished`.
   */
  readonly onPublished?: (revisionId: string) => void;
  /**
   * Prints usage errors the way every command does — each message, then the
   * runnable recovery line, `<brand> <path> --help` unless `recovery` gives
   * the words after the brand of another — and returns exit code 2. With
   * `--json` it prints the error envelope on stdout instead.
   */
  usage(messages: string | readonly string[], recovery?: readonly string[]): number;
}
