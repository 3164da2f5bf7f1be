// Built-in commands declared like extension commands: a built-in's path,
// summary, description and inputs (in the descriptor's input format) are a
// command declaration, checked by @rukh/descriptor's one declaration
// validator and read by the same lexer, decoder, help and completion. A
// declaration that does not validate is a programming error of the brand
// and fails loudly.

import {
  type CliCommandSpec,
  type CommandDeclaration,
  cliSpec,
  decodeCliInputs,
  type InputIssueCode,
  type InputValue,
  validateCommandDeclarations,
  validateInputs,
} from "@rukh/descriptor";
import type { ValidationIssue } from "@rukh/json";
import type { CliBuiltin } from "./_builtin.js";
import { CliError } from "./_errors.js";

/** A built-in's checked declaration, how it appears on the command line, and the check of its inputs. */
export interface DeclaredBuiltin {
  readonly declaration: CommandDeclaration;
  readonly cli: CliCommandSpec;
  /**
   * The checked values of the lexed tokens `raw` (input id → words): decoded
   * and validated by the descriptor's own functions, defaults applied.
   */
  check(raw: Map<string, string[]>): DeclaredInputs;
}

/** A declared built-in's checked input values, or the issues that stopped them. */
export type DeclaredInputs =
  | { readonly ok: true; readonly values: Readonly<Record<string, InputValue>> }
  | { readonly ok: false; readonly issues: readonly ValidationIssue<InputIssueCode>[] };

// Each built-in is checked once per process.
const checkedOnce = new WeakMap<CliBuiltin, DeclaredBuiltin>();

/** Checks the declaration of a built-in; `undefined` for one that takes raw arguments. */
export function checkDeclaration(b: CliBuiltin): DeclaredBuiltin | undefined {
  if (b.inputs === undefined) {
    // What is journaled of a change is its declared inputs: one without them cannot be recorded.
    if (b.changesState !== undefined && b.changesState !== false)
      throw new CliError(
        "invalid_option",
        `built-in "${b.path.join(" ")}" changes state but declares no inputs; expected inputs, which its journal record is made of`,
      );
    return undefined;
  }
  let d = checkedOnce.get(b);
  if (d === undefined) {
    const v = validateCommandDeclarations([
      {
        path: [...b.path],
        summary: b.summary,
        ...(b.description !== undefined && { description: b.description }),
        inputs: [...b.inputs],
      },
    ]);
    if (!v.ok)
      throw new CliError(
        "invalid_option",
        `built-in "${b.path.join(" ")}" declares invalid inputs: ${v.issues.map((i) => `${i.path} ${i.message}`).join("; ")}`,
      );
    const command = v.value[0]!;
    d = { declaration: command, cli: cliSpec(command), check: (raw) => checked(command, raw) };
    checkedOnce.set(b, d);
  }
  return d;
}

/** Decodes and validates a declared built-in's lexed tokens with the descriptor's own functions. */
function checked(command: CommandDeclaration, raw: Map<string, string[]>): DeclaredInputs {
  const decoded = decodeCliInputs(command, raw);
  if (!decoded.ok) return { ok: false, issues: decoded.issues };
  const validated = validateInputs(command, decoded.value);
  if (!validated.ok) return { ok: false, issues: validated.issues };
  return { ok: true, values: validated.value.values };
}
