// What `mcp serve` says about where it writes before it serves: on a
// read-only state directory (a replica's shipped copy), one line naming its
// journal directory and cursor key; on one without a journal directory, the
// refusal and a command line that serves.

import { homedir } from "node:os";
import { join } from "node:path";
import type { BuiltinContext } from "@rukh/cli";
import type { StateDirectory } from "@rukh/profile";
import { shellWord } from "./_mcp-clients.js";

/**
 * Says where a server of `state` writes, when its state directory is
 * read-only; returns false, having printed the refusal and its fix, when
 * the server cannot start there.
 */
export async function announcePlaces(
  ctx: BuiltinContext,
  brand: string,
  state: StateDirectory,
): Promise<boolean> {
  const { journalDirVariable, placesLine } = await import("@rukh/profile");
  const places = await state.places();
  if (places.refusal !== undefined) {
    // The same command, with a journal directory for this host alone.
    const dir = join(
      ctx.env.XDG_STATE_HOME || join(ctx.env.HOME || homedir(), ".local", "state"),
      `${brand}-journal`,
    );
    const line = [
      `${journalDirVariable(brand)}=${shellWord(dir)}`,
      brand,
      "--home",
      ctx.stateDir,
      ...ctx.path,
      ...ctx.args,
    ]
      .map((w, i) => (i === 0 ? w : shellWord(w)))
      .join(" ");
    ctx.stderr.write(`${brand}: ${places.refusal}, as in:\n  $ ${line}\n`);
    return false;
  }
  if (places.readOnly !== undefined)
    ctx.stderr.write(`${brand} mcp: the state directory ${placesLine(places)}\n`);
  return true;
}
