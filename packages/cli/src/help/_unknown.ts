// A command path that names nothing: a usage error that offers the nearest
// known path, by the same "did you mean" threshold as every other.

import { type Session, usage } from "../output/index.js";
import type { RouteIndex } from "../routes/index.js";

/** An unknown command path, with the nearest known one when there is one. */
export function unknownCommand(s: Session, index: RouteIndex, typed: readonly string[]): number {
  const near = index.suggest(typed);
  const shown = `${s.brand} ${typed.join(" ")}`;
  if (near !== undefined)
    return usage(s, `unknown command "${shown}"; did you mean "${s.brand} ${near.join(" ")}"?`, [
      s.brand,
      ...near,
      "--help",
    ]);
  return usage(s, `unknown command "${shown}"; expected a command listed by --help`, [
    s.brand,
    ...typed.slice(0, -1),
    "--help",
  ]);
}
