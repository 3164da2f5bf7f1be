// What a brand gives `createCli`, and how its own commands are declared.
// Its steps: the options a branded CLI is made from (`_options.ts`); each
// built-in command — path, summary, description, typed inputs, and the
// function that runs it (`_builtin.ts`); its declaration checked by
// @rukh/descriptor's one command-declaration validator and projected for
// the command line as an extension command's is (`_declared.ts`, loaded
// only when a declared built-in is helped, completed or run, so help and
// listing never load the validator); and the one error a misuse of these
// throws (`_errors.ts`). It imports only the output room.

import type { CliCommandSpec } from "@rukh/descriptor";
import type { CliBuiltin } from "./_builtin.js";
import type { DeclaredBuiltin } from "./_declared.js";

export type { BuiltinContext, CliBuiltin } from "./_builtin.js";
export type { DeclaredBuiltin, DeclaredInputs } from "./_declared.js";
export type { CliErrorCode } from "./_errors.js";
export { CLI_ERROR_CODES, CliError } from "./_errors.js";
export type { Cli, CliOptions } from "./_options.js";
export { BRAND_PATTERN } from "./_options.js";

/**
 * The checked declaration of a built-in that declares its inputs, or
 * `undefined` for one that takes raw arguments; throws `CliError` for a
 * declaration that does not validate (the brand's mistake).
 */
export async function declared(b: CliBuiltin): Promise<DeclaredBuiltin | undefined> {
  if (b.inputs === undefined && (b.changesState === undefined || b.changesState === false))
    return undefined;
  return (await import("./_declared.js")).checkDeclaration(b);
}

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
  return (await declared(b))?.cli;
}
