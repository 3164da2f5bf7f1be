// Development links are linked again before a command line is routed when
// their directories changed, so an author's edit is what the next call runs,
// its help shows and its tools list: no re-sign, no re-install.

import type { Session } from "./_session.js";

/**
 * Links again every changed development link of the state directory `root`
 * (see `StateDirectory.refreshLinks`); true when that published a revision.
 * A link that cannot be read or checked keeps its last copy, and says so on
 * stderr; so does one that was linked again.
 */
export async function refreshDevLinks(s: Session, root: string): Promise<boolean> {
  const { StateDirectory } = await import("@rukh/profile");
  let result: Awaited<ReturnType<InstanceType<typeof StateDirectory>["refreshLinks"]>>;
  try {
    result = await new StateDirectory(root).refreshLinks();
  } catch (e) {
    s.stderr.write(`warning: cannot link development packages again: ${(e as Error).message}\n`);
    return false;
  }
  for (const id of result.refreshed) s.stderr.write(`[dev] ${id} changed: linked again\n`);
  for (const p of result.problems)
    s.stderr.write(
      `warning: [dev] ${p.id} (${p.source}) is not linked again, its last copy runs: ${p.message}\n`,
    );
  return result.refreshed.length > 0;
}
