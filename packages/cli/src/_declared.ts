// Built-in commands declared like extension commands: their inputs use the
// descriptor's input format and go through the same validator, lexer,
// decoder, help and completion. A declaration that does not validate is a
// programming error of the brand and fails loudly.

import {
  type CommandSpec,
  cliSpec,
  decodeCliInputs,
  type InputIssueCode,
  type InputValue,
  validateDescriptor,
  validateInputs,
} from "@rukh/descriptor";
import type { ValidationIssue } from "@rukh/json";
import type { CliRoute } from "@rukh/profile";
import { CliError } from "./_errors.js";
import type { CliBuiltin } from "./_routes.js";

const declared = new WeakMap<CliBuiltin, { command: CommandSpec; route: CliRoute }>();

/** The command spec and route of a declared built-in, or `undefined` for one that takes raw arguments. */
export function declaration(b: CliBuiltin): { command: CommandSpec; route: CliRoute } | undefined {
  if (b.inputs === undefined) return undefined;
  let d = declared.get(b);
  if (d === undefined) {
    const id = b.path.join("_").replaceAll("-", "_");
    const v = validateDescriptor({
      format: "rukh.extension/2",
      id: "builtin",
      version: "1.0.0",
      publisher: "builtin",
      commands: [
        {
          id,
          path: [...b.path],
          summary: b.summary,
          ...(b.description !== undefined && { description: b.description }),
          inputs: b.inputs as never,
          execute: {
            mapping: "managed",
            program: "builtin",
            runtime: "node",
            result: { kind: "text" },
          },
          machine: { eligible: false },
        },
      ],
    } as never);
    if (!v.ok)
      throw new CliError(
        "invalid_option",
        `built-in "${b.path.join(" ")}" declares invalid inputs: ${v.issues.map((i) => `${i.path} ${i.message}`).join("; ")}`,
      );
    const command = v.value.commands[0]!;
    d = {
      command,
      route: { extension: "", identity: "", path: b.path, aliases: [], cli: cliSpec(command) },
    };
    declared.set(b, d);
  }
  return d;
}

/** Decodes and validates a declared built-in's lexed tokens with the descriptor's own functions. */
export function declaredInputs(
  command: CommandSpec,
  raw: Map<string, string[]>,
):
  | { ok: true; values: Readonly<Record<string, InputValue>> }
  | { ok: false; issues: readonly ValidationIssue<InputIssueCode>[] } {
  const decoded = decodeCliInputs(command, raw);
  if (!decoded.ok) return { ok: false, issues: decoded.issues };
  const validated = validateInputs(command, decoded.value);
  if (!validated.ok) return { ok: false, issues: validated.issues };
  return { ok: true, values: validated.value.values };
}
