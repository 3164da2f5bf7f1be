import {
  type JsonValue,
  numberSourceText,
  pointerAppend,
  type Validation,
  type ValidationIssue,
} from "@rukh/json";
import type { InputIssueCode } from "./_codes.js";
import type {
  CommandDeclaration,
  InputSpec,
  InputValue,
  ScalarSpec,
  ScalarValue,
} from "./_model.js";
import { checkScalar, type Decoded, decodeScalarJson, decodeScalarText, shown } from "./_values.js";

/**
 * Values as an adapter decoded them: typed, keyed by input id. The keys are
 * exactly the inputs the caller supplied explicitly.
 */
export interface SuppliedInputs {
  readonly values: ReadonlyMap<string, InputValue>;
}

/** Inputs after the semantic validator: every declared input that has a value, and which ids were explicit. */
export interface ValidatedInputs {
  /** Input id → value, explicit values and applied defaults alike. */
  readonly values: Readonly<Record<string, InputValue>>;
  /** Ids the caller supplied, sorted. */
  readonly explicit: readonly string[];
}

type Issue = ValidationIssue<InputIssueCode>;

function scalarSpecOf(input: InputSpec): ScalarSpec {
  return input.type === "list" ? input.items : (input as ScalarSpec);
}

function push(
  issues: Issue[],
  path: string,
  d: Extract<Decoded, { ok: false }> | { code: InputIssueCode; message: string },
) {
  issues.push({ path, code: d.code, message: d.message });
}

/**
 * Decodes command-line text into typed values. `raw` maps an input id to the
 * tokens given for it, in order (a list flag repeated, or the rest of the
 * positionals). The adapter does only the lexical split; every conversion
 * happens here.
 *
 * @example
 * decodeCliInputs(command, new Map([["count", ["3"]], ["tags", ["a", "b"]]]));
 */
export function decodeCliInputs(
  command: CommandDeclaration,
  raw: ReadonlyMap<string, readonly string[]>,
): Validation<SuppliedInputs, InputIssueCode> {
  const issues: Issue[] = [];
  const values = new Map<string, InputValue>();
  const byId = new Map(command.inputs.map((i) => [i.id, i]));
  for (const [id, tokens] of raw) {
    const path = pointerAppend("", id);
    const input = byId.get(id);
    if (input === undefined) {
      issues.push({
        path,
        code: "unknown_input",
        message: `no input ${shown(id)}; expected one of the declared inputs`,
      });
      continue;
    }
    const spec = scalarSpecOf(input);
    if (input.type === "list") {
      const list: ScalarValue[] = [];
      tokens.forEach((t, i) => {
        const d = decodeScalarText(spec, t);
        if (d.ok) list.push(d.value);
        else push(issues, pointerAppend(path, i), d);
      });
      values.set(id, list);
    } else if (tokens.length !== 1) {
      issues.push({
        path,
        code: "repeated_input",
        message: `given ${tokens.length} times; expected one value`,
      });
    } else {
      const d = decodeScalarText(spec, tokens[0]!);
      if (d.ok) values.set(id, d.value);
      else push(issues, path, d);
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: { values } };
}

/**
 * Decodes MCP tool arguments (a JSON object keyed by input id) into typed
 * values. Unknown properties and `null` are rejected; absent arguments mean
 * no explicit inputs. Parse the message with `numbers: "exact"` so integers
 * are judged on their literal text.
 *
 * @example
 * const msg = parseJson(bytes, { numbers: "exact" });
 * decodeJsonInputs(command, (msg.value as any).params.arguments);
 */
export function decodeJsonInputs(
  command: CommandDeclaration,
  args: JsonValue | undefined,
): Validation<SuppliedInputs, InputIssueCode> {
  const values = new Map<string, InputValue>();
  if (args === undefined) return { ok: true, value: { values } };
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return {
      ok: false,
      issues: [
        {
          path: "",
          code: "unknown_input",
          message: `arguments are ${shown(args)}; expected an object keyed by input id`,
        },
      ],
    };
  }
  const issues: Issue[] = [];
  const byId = new Map(command.inputs.map((i) => [i.id, i]));
  for (const id of Object.keys(args)) {
    const path = pointerAppend("", id);
    const input = byId.get(id);
    const value = args[id]!;
    if (input === undefined) {
      issues.push({
        path,
        code: "unknown_input",
        message: `no input ${shown(id)}; expected only declared input ids`,
      });
      continue;
    }
    const spec = scalarSpecOf(input);
    if (input.type === "list") {
      if (value === null) {
        issues.push({
          path,
          code: "null_not_allowed",
          message: "got null; null never means omitted: leave the input out instead",
        });
      } else if (!Array.isArray(value)) {
        issues.push({
          path,
          code: "expected_list",
          message: `got ${shown(value)}; expected an array`,
        });
      } else {
        const list: ScalarValue[] = [];
        value.forEach((v, i) => {
          const d = decodeScalarJson(spec, v, numberSourceText(value, i));
          if (d.ok) list.push(d.value);
          else push(issues, pointerAppend(path, i), d);
        });
        values.set(id, list);
      }
    } else {
      const d = decodeScalarJson(spec, value, numberSourceText(args, id));
      if (d.ok) values.set(id, d.value);
      else push(issues, path, d);
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: { values } };
}

/**
 * The one semantic validator: applies required inputs, defaults, constraints
 * and list bounds to decoded values, whichever adapter decoded them, and
 * records which ids were explicit. Re-checks every value's type, so values
 * built by hand cannot bypass it.
 *
 * @example
 * const supplied = decodeJsonInputs(command, args);
 * if (supplied.ok) validateInputs(command, supplied.value); // { ok, value: { values, explicit } }
 */
export function validateInputs(
  command: CommandDeclaration,
  supplied: SuppliedInputs,
): Validation<ValidatedInputs, InputIssueCode> {
  const issues: Issue[] = [];
  const values: Record<string, InputValue> = {};
  const declared = new Set(command.inputs.map((i) => i.id));
  for (const id of supplied.values.keys()) {
    if (!declared.has(id))
      issues.push({
        path: pointerAppend("", id),
        code: "unknown_input",
        message: `no input ${shown(id)}; expected only declared inputs`,
      });
  }
  for (const input of command.inputs) {
    const path = pointerAppend("", input.id);
    const given = supplied.values.get(input.id);
    const value = given ?? input.default;
    if (value === undefined) {
      if (input.required)
        issues.push({
          path,
          code: "missing_required",
          message: `input ${input.id} is required; expected a value`,
        });
      continue;
    }
    if (given !== undefined && checkInput(input, given, path, issues))
      values[input.id] = freeze(given);
    else if (given === undefined) values[input.id] = value;
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { values, explicit: [...supplied.values.keys()].sort() } };
}

function freeze(value: InputValue): InputValue {
  return Array.isArray(value) ? Object.freeze([...value]) : value;
}

/** Checks one value against its input spec, appending issues; true when it conforms. */
export function checkInput(
  input: InputSpec,
  value: unknown,
  path: string,
  issues: Issue[],
): boolean {
  const before = issues.length;
  if (value === null) {
    issues.push({
      path,
      code: "null_not_allowed",
      message: "got null; null never means omitted: leave the input out instead",
    });
    return false;
  }
  if (input.type === "list") {
    if (!Array.isArray(value)) {
      issues.push({ path, code: "expected_list", message: `got ${shown(value)}; expected a list` });
      return false;
    }
    if (input.minItems !== undefined && value.length < input.minItems) {
      issues.push({
        path,
        code: "too_few_items",
        message: `got ${value.length} items; expected at least ${input.minItems}`,
      });
    }
    if (value.length > input.maxItems) {
      issues.push({
        path,
        code: "too_many_items",
        message: `got ${value.length} items; expected at most ${input.maxItems}`,
      });
    }
    value.forEach((v, i) => {
      const problem = checkScalar(input.items, v);
      if (problem) push(issues, pointerAppend(path, i), problem);
    });
  } else {
    const problem = checkScalar(input as ScalarSpec, value);
    if (problem) push(issues, path, problem);
  }
  return issues.length === before;
}
