// Running what a command line names. Its steps: a built-in — `--json` and
// `--no-color` after its path, its declared inputs lexed, decoded and
// validated as an extension command's are, then its own function
// (`_run-builtin.ts`); an extension command — its words lexed by its
// declaration (a passthrough program gets them verbatim), decoded, and one
// call of the core (`_run-command.ts`, loaded only for a run, with the core)
// — its progress on a terminal (`_progress.ts`) and its outcome rendered
// (`_render.ts`); both with SIGINT/SIGTERM as an abort signal
// (`_signals.ts`). It imports the parsing, routes, declarations and output
// rooms.

import type { Session } from "../output/index.js";
import type { CommandRun } from "./_run-command.js";

export type { BuiltinRun } from "./_run-builtin.js";
export { runBuiltin } from "./_run-builtin.js";
export type { CommandRun } from "./_run-command.js";

/**
 * Runs an extension command (see `_run-command.ts`): only a command run
 * loads what running needs, the core among it.
 */
export async function runCommand(s: Session, run: CommandRun): Promise<number> {
  return (await import("./_run-command.js")).runCommand(s, run);
}
