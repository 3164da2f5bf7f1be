// A command's declaration: the fields every command has, whoever runs it —
// its path and aliases, its help text and its typed inputs — read by one
// grammar and judged by one set of rules. An extension command is read as a
// declaration plus its execution (`_grammar.ts`); a brand's built-in command
// is a declaration on its own, read here by `validateCommandDeclarations`.

import { type JsonObject, type JsonValue, pointerAppend, type Validation } from "@rukh/json";
import type { DescriptorIssueCode } from "./_codes.js";
import { hiddenTextIssues } from "./_hidden-text.js";
import { readInput } from "./_input-specs.js";
import * as L from "./_limits.js";
import type { CommandDeclaration } from "./_model.js";
import { DESCRIPTION, DescriptorReader, SUMMARY } from "./_reader.js";
import { declarationRouteRules, declarationRules } from "./_rules.js";

/** The fields of a declaration standing alone (a descriptor's command has more). */
const DECLARATION_FIELDS = ["path", "aliases", "summary", "description", "inputs"];

/** Whether every entry was read (none `undefined`). */
export function allRead<T>(xs: readonly (T | undefined)[]): xs is readonly T[] {
  return xs.every((x) => x !== undefined);
}

/**
 * Reads the declaration fields (path, aliases, summary, description,
 * inputs) of the command object `c` at `path`; which other fields it may
 * hold is the caller's to check.
 */
export function readDeclaration(
  r: DescriptorReader,
  path: string,
  c: JsonObject,
): CommandDeclaration | undefined {
  const at = (k: string) => pointerAppend(path, k);
  const words = r.words(at("path"), c.path);
  const aliases = (r.array(at("aliases"), c.aliases, L.MAX_ALIASES) ?? []).map((a, i) =>
    r.words(pointerAppend(at("aliases"), i), a),
  );
  const summary = r.text(at("summary"), c.summary, SUMMARY);
  const description = r.text(at("description"), c.description, DESCRIPTION);
  const rawInputs = r.array(at("inputs"), c.inputs, L.MAX_INPUTS) ?? [];
  const inputs = rawInputs.map((x, i) => readInput(r, pointerAppend(at("inputs"), i), x));
  if (words === undefined || !allRead(aliases) || summary === undefined || !allRead(inputs))
    return undefined;
  return {
    path: words,
    aliases,
    summary,
    ...(description !== undefined && { description }),
    inputs,
  };
}

/**
 * Validates a list of command declarations, each written as a descriptor
 * writes a command's `path`, `aliases`, `summary`, `description` and
 * `inputs` (and nothing else): the same grammar, the same rules (unique
 * input ids and flags, none reserved, positionals in order, no hidden
 * text) and each route once, as `validateDescriptor` applies to an
 * extension's commands. Reports every issue, each at a JSON pointer into
 * the list (`/0/inputs/1/flag`). What a brand's built-in commands are
 * declared through.
 *
 * @example
 * const r = validateCommandDeclarations([{ path: ["ext", "list"], summary: "List extensions", inputs: [{ id: "all", type: "boolean", summary: "Disabled ones too" }] }]);
 * if (r.ok) r.value[0].inputs[0].cli.flag; // "all"
 */
export function validateCommandDeclarations(
  value: JsonValue,
): Validation<readonly CommandDeclaration[], DescriptorIssueCode> {
  const r = new DescriptorReader();
  return r.result(readDeclarations(r, value));
}

function readDeclarations(
  r: DescriptorReader,
  v: JsonValue,
): readonly CommandDeclaration[] | undefined {
  const list = r.array("", v, L.MAX_COMMANDS);
  if (list === undefined) return undefined;
  // No string anywhere in it (a member name included) may hide text from its reader.
  r.addAll(hiddenTextIssues(v));
  const read = list.map((c, i) => {
    const path = pointerAppend("", i);
    const o = r.object(path, c, DECLARATION_FIELDS, ["path", "summary"]);
    const declaration = o === undefined ? undefined : readDeclaration(r, path, o);
    if (declaration !== undefined) r.addAll(declarationRules(path, declaration));
    return declaration;
  });
  if (!allRead(read)) return undefined;
  r.addAll(declarationRouteRules(read));
  return read;
}
