// The route of a declared built-in, for generators outside the CLI (docs).

import type { CliRoute } from "@rukh/profile";
import type { CliBuiltin } from "./_routes.js";

/**
 * The CLI route of a built-in that declares its inputs — the same shape as
 * an extension command's, read by the same help and docs generators — or
 * `undefined` for one that takes raw arguments.
 *
 * @example
 * const route = await builtinRoute(installBuiltin);
 * for (const f of route?.cli.flags ?? []) console.log(`--${f.flag}`);
 */
export async function builtinRoute(b: CliBuiltin): Promise<CliRoute | undefined> {
  if (b.inputs === undefined) return undefined;
  return (await import("./_declared.js")).declaration(b)?.route;
}
