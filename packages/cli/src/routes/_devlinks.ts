// Development links are linked again before a command line is routed when
// their directories changed, so an author's edit is what the next call runs,
// its help shows and its tools list: no re-sign, no re-install.

import type { StateDirectory } from "@rukh/profile";
import { type CliStream, terminalText } from "../output/index.js";

/**
 * What a command line does before it is routed, for a built-in that shows
 * or serves the commands (`tools list`, `mcp serve`): links again every
 * changed development link of the state directory (its root, or the
 * `StateDirectory` the built-in reads next, whose revision cache it then
 * shares), saying on `stderr` what it did, and returns the active revision
 * after it (`undefined` when it could not tell). A link that cannot be read
 * or checked keeps its last copy, and says so. With `publish` false (a
 * read-only command: help, a listing) it only says which links changed, and
 * publishes nothing. Every command line over development links is routed
 * after it too.
 *
 * @example
 * await linkAgain(ctx.stderr, state);
 */
export async function linkAgain(
  stderr: CliStream,
  where: string | StateDirectory,
  publish = true,
): Promise<string | undefined> {
  let result: Awaited<ReturnType<StateDirectory["refreshLinks"]>>;
  try {
    const state =
      typeof where === "string" ? new (await import("@rukh/profile")).StateDirectory(where) : where;
    result = await state.refreshLinks({ publish });
  } catch (e) {
    stderr.write(
      `warning: cannot link development packages again: ${terminalText((e as Error).message)}\n`,
    );
    return undefined;
  }
  for (const id of result.refreshed) stderr.write(`[dev] ${id} changed: linked again\n`);
  for (const id of result.changed)
    stderr.write(
      `[dev] ${id} changed since it was linked: this shows its last copy; the next call links it again\n`,
    );
  for (const p of result.problems)
    stderr.write(
      `warning: [dev] ${p.id} (${terminalText(p.source)}) is not linked again, its last copy runs: ${terminalText(p.message)}\n`,
    );
  return result.revisionId ?? undefined;
}
