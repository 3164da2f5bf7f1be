// The one way the suites with fixture programs of their own (a
// `commands.mjs` answering every command of their descriptors) write an
// extension package: their programs, a descriptor, signed as the fixture
// publisher; and the state directory those suites start from.

import { readFileSync } from "node:fs";
import {
  commandsDescriptor,
  type FixtureCommand,
  type FixtureState,
  fixtureState,
  writeFixturePackage,
} from "./index.js";

/** A suite's fixture programs, shipped in each package {@link makeExtension} writes. */
export interface FixturePrograms {
  /** The suite's fixtures folder (ending in `/`): its `commands.mjs` is `bin/commands.mjs`. */
  readonly folder: URL;
  /** Ship the folder's `passthrough.mjs` as `bin/passthrough.mjs` (default not). */
  readonly passthrough?: boolean;
  /** Ship `bin/native`, whose interpreter does not exist: execve fails, it cannot start (default not). */
  readonly native?: boolean;
  /** A quoted placeholder in `commands.mjs` (`__VERSION__`) and the descriptor field written in its place. */
  readonly stamp?: { readonly placeholder: string; readonly field: "id" | "version" };
}

/**
 * Writes an extension package under `parent` with `descriptor` and the
 * suite's fixture `programs`, signs it as the fixture publisher, and returns
 * its directory.
 *
 * @example
 * const PROGRAMS = { folder: new URL("./fixtures/", import.meta.url), passthrough: true };
 * await makeExtension(work, commandsDescriptor("fx.main", "1.0.0", commands), PROGRAMS);
 */
export function makeExtension(
  parent: string,
  descriptor: object,
  programs: FixturePrograms,
): Promise<string> {
  let commands = readFileSync(new URL("commands.mjs", programs.folder), "utf8");
  const stamp = programs.stamp;
  if (stamp !== undefined) {
    const value = (descriptor as Partial<Record<string, unknown>>)[stamp.field];
    if (typeof value !== "string") throw new Error(`the descriptor has no ${stamp.field} to stamp`);
    commands = commands.replace(JSON.stringify(stamp.placeholder), JSON.stringify(value));
  }
  return writeFixturePackage({
    parent,
    descriptor,
    programs: {
      "bin/commands.mjs": commands,
      ...(programs.passthrough && {
        "bin/passthrough.mjs": readFileSync(new URL("passthrough.mjs", programs.folder)),
      }),
      ...(programs.native && { "bin/native": "#!/nonexistent/interpreter\nexit 0\n" }),
    },
  });
}

/** What {@link mainAndHiddenState} sets up. */
export interface MainAndHiddenState {
  /** Prefix of the temporary work directory. */
  readonly prefix: string;
  /** An existing, empty work directory to use instead of a new one. */
  readonly at?: string;
  /** The owner config, stored as JSON. */
  readonly config: object;
  /** The commands of `fx.main`. */
  readonly commands: readonly FixtureCommand[];
  /** The suite's fixture programs, in both packages. */
  readonly programs: FixturePrograms;
}

/**
 * A fresh state directory with the owner config set and two extensions of
 * the suite's programs installed, one revision each: `fx.main@1.0.0` with
 * `commands`, and `fx.hidden@1.0.0` with one command, `secret`.
 *
 * @example
 * await mainAndHiddenState({ prefix: "rukh-mcp-", config, commands: COMMANDS, programs: PROGRAMS });
 */
export function mainAndHiddenState(options: MainAndHiddenState): Promise<FixtureState> {
  return fixtureState({
    prefix: options.prefix,
    ...(options.at !== undefined && { at: options.at }),
    config: options.config,
    packages: async (work) => [
      await makeExtension(
        work,
        commandsDescriptor("fx.main", "1.0.0", options.commands),
        options.programs,
      ),
      await makeExtension(
        work,
        commandsDescriptor("fx.hidden", "1.0.0", [{ id: "secret" }]),
        options.programs,
      ),
    ],
    install: "each",
  });
}
