// What `mcp serve` says about where it writes before it serves: on a
// read-only state directory (a replica's shipped copy), one line naming its
// journal directory and cursor key; on one without a journal directory, a
// refusal whose line serves.

import { homedir } from "node:os";
import { join } from "node:path";
import type { BuiltinContext } from "@rukh/cli";
import type { StateDirectory } from "@rukh/profile";
import { note, StateProblem } from "../kit/index.js";

/**
 * Says where a server of `state` writes, when its state directory is
 * read-only; throws a `read_only` {@link StateProblem} whose line is the same
 * command with a journal directory for this host alone, when the server
 * cannot start there.
 */
export async function announcePlaces(
  ctx: BuiltinContext,
  brand: string,
  state: StateDirectory,
): Promise<void> {
  const { journalDirVariable, placesLine } = await import("@rukh/profile");
  const places = await state.places();
  if (places.refusal !== undefined) {
    const dir = join(
      ctx.env.XDG_STATE_HOME || join(ctx.env.HOME || homedir(), ".local", "state"),
      `${brand}-journal`,
    );
    throw new StateProblem("read_only", places.refusal, {
      see: ["--home", ctx.stateDir, ...ctx.path, ...ctx.args],
      env: { [journalDirVariable(brand)]: dir },
    });
  }
  if (places.readOnly !== undefined)
    note(ctx, `${brand} mcp: the state directory ${placesLine(places)}\n`);
}
