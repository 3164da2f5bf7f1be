// How a declared built-in appears on the command line, for generators
// outside the CLI (docs).

import type { CliCommandSpec } from "@rukh/descriptor";
import type { CliBuiltin } from "./_routes.js";

/**
 * How a built-in that declares its inputs appears on the command line — the
 * `CliCommandSpec` an extension command's route carries, read by the same
 * help and docs generators — or `undefined` for one that takes raw
 * arguments.
 *
 * @example
 * const cli = await builtinCliSpec(installBuiltin);
 * for (const f of cli?.flags ?? []) console.log(`--${f.flag}`);
 */
export async function builtinCliSpec(b: CliBuiltin): Promise<CliCommandSpec | undefined> {
  if (b.inputs === undefined) return undefined;
  return (await import("./_declared.js")).checkDeclaration(b)?.cli;
}
