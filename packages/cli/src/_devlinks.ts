// Development links are linked again before a command line is routed when
// their directories changed, so an author's edit is what the next call runs,
// its help shows and its tools list: no re-sign, no re-install.

import type { CliStream, Session } from "./_session.js";
import { terminalText } from "./_terminal.js";

/**
 * Links again every changed development link of the state directory `root`
 * (see `StateDirectory.refreshLinks`) and returns the active revision after
 * it (`undefined` when it could not tell). A link that cannot be read or
 * checked keeps its last copy, and says so on stderr; so does one that was
 * linked again.
 */
export function refreshDevLinks(s: Session, root: string): Promise<string | undefined> {
  return linkAgain(s.stderr, root);
}

/**
 * What a command line does before it is routed, for a built-in that shows
 * or serves the commands (`tools list`, `mcp serve`): links again every
 * changed development link of `root`, saying on `stderr` what it did, and
 * returns the active revision after it.
 *
 * @example
 * await linkAgain(ctx.stderr, ctx.stateDir);
 */
export async function linkAgain(stderr: CliStream, root: string): Promise<string | undefined> {
  const { StateDirectory } = await import("@rukh/profile");
  let result: Awaited<ReturnType<InstanceType<typeof StateDirectory>["refreshLinks"]>>;
  try {
    result = await new StateDirectory(root).refreshLinks();
  } catch (e) {
    stderr.write(
      `warning: cannot link development packages again: ${terminalText((e as Error).message)}\n`,
    );
    return undefined;
  }
  for (const id of result.refreshed) stderr.write(`[dev] ${id} changed: linked again\n`);
  for (const p of result.problems)
    stderr.write(
      `warning: [dev] ${p.id} (${terminalText(p.source)}) is not linked again, its last copy runs: ${terminalText(p.message)}\n`,
    );
  return result.revisionId ?? undefined;
}
