// The input model as a descriptor declares it: an input's type, its
// constraints, its CLI spelling and its default, read into an `InputSpec`.
// A default is judged by the same decoder and checks as a supplied value.

import {
  type JsonObject,
  type JsonValue,
  numberSourceText,
  pointerAppend,
  type ValidationIssue,
} from "@rukh/json";
import type { InputIssueCode } from "./_codes.js";
import { INPUT_ID, SHORT, WORD } from "./_ids.js";
import { checkInput } from "./_inputs.js";
import * as L from "./_limits.js";
import {
  type CliSpelling,
  type InputSpec,
  type InputValue,
  SCALAR_TYPES,
  type ScalarSpec,
  type ScalarValue,
} from "./_model.js";
import {
  DESCRIPTION,
  type DescriptorReader,
  ENUM_VALUE,
  isObject,
  SUMMARY,
  typeName,
} from "./_reader.js";
import { compareDecimal, decodeScalarJson, shown } from "./_values.js";

/** The kebab-case flag spelled from an input id: same words, `_` → `-`. */
export function defaultFlag(inputId: string): string {
  return inputId.replaceAll("_", "-");
}

const INPUT_COMMON = [
  "id",
  "type",
  "summary",
  "description",
  "required",
  "default",
  "flag",
  "flagDiffers",
  "short",
  "positional",
];
const CONSTRAINTS: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength"],
  integer: ["minimum", "maximum"],
  number: ["minimum", "maximum"],
  decimal: ["minimum", "maximum"],
  boolean: [],
  enum: ["values"],
  list: ["items", "minItems", "maxItems"],
};
const ALL_CONSTRAINTS = [
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "values",
  "items",
  "minItems",
  "maxItems",
];
const ITEM_CONSTRAINTS = ["minLength", "maxLength", "minimum", "maximum", "values"];

type ListSpec = { type: "list"; items: ScalarSpec; minItems?: number; maxItems: number };

/** Reads one input declaration at `path`. */
export function readInput(r: DescriptorReader, path: string, v: JsonValue): InputSpec | undefined {
  if (!isObject(v)) {
    r.add(path, "invalid_type", `got ${typeName(v)}; expected an input object`);
    return undefined;
  }
  const at = (k: string) => pointerAppend(path, k);
  const type = r.oneOf(at("type"), v.type, [...SCALAR_TYPES, "list"]);
  const applicable = type === undefined ? ALL_CONSTRAINTS : (CONSTRAINTS[type] ?? []);
  r.object(path, v, [...INPUT_COMMON, ...ALL_CONSTRAINTS], ["id", "type", "summary"]);
  for (const key of ALL_CONSTRAINTS) {
    if (v[key] !== undefined && type !== undefined && !applicable.includes(key)) {
      r.add(
        at(key),
        "invalid_value",
        `${key} does not apply to ${type} inputs; expected only ${applicable.join(", ") || "no constraints"}`,
      );
    }
  }
  const id = r.string(at("id"), v.id, { re: INPUT_ID, what: "a snake_case input id" });
  const summary = r.text(at("summary"), v.summary, SUMMARY);
  const description = r.text(at("description"), v.description, DESCRIPTION);
  const required = r.boolean(at("required"), v.required) ?? false;
  const cli = readCli(r, path, v, id);
  if (type === undefined || id === undefined || summary === undefined || cli === undefined)
    return undefined;
  const spec = type === "list" ? readList(r, path, v) : readScalar(r, path, v);
  if (spec === undefined) return undefined;
  const base = { id, summary, ...(description !== undefined && { description }), required, cli };
  const input = { ...base, ...spec } as InputSpec;
  if (v.default === undefined) return input;
  if (required) {
    r.add(
      at("default"),
      "required_with_default",
      "a required input cannot have a default; expected required: false or no default",
    );
    return undefined;
  }
  const dflt = readDefault(r, at("default"), input, v);
  return dflt === undefined ? undefined : ({ ...input, default: dflt } as InputSpec);
}

function readCli(
  r: DescriptorReader,
  path: string,
  v: JsonObject,
  id: string | undefined,
): CliSpelling | undefined {
  const at = (k: string) => pointerAppend(path, k);
  const positional = r.count(at("positional"), v.positional, L.MAX_INPUTS - 1);
  const flag = r.string(at("flag"), v.flag, {
    re: WORD,
    what: "a kebab-case flag name without dashes",
  });
  const short = r.string(at("short"), v.short, { re: SHORT, what: "one ASCII letter" });
  if (v.positional !== undefined && (v.flag !== undefined || v.short !== undefined)) {
    r.add(
      at("positional"),
      "invalid_value",
      "a positional input has no flag; expected either positional or flag/short",
    );
    return undefined;
  }
  const differs = readFlagDiffers(r, path, v, id, flag);
  if (
    id === undefined ||
    (v.positional !== undefined && positional === undefined) ||
    (v.flag !== undefined && flag === undefined) ||
    (v.short !== undefined && short === undefined) ||
    differs === false
  ) {
    return undefined;
  }
  if (positional !== undefined) return { positional };
  return { flag: flag ?? defaultFlag(id), ...(short !== undefined && { short }) };
}

/**
 * One name for an input on every surface: the MCP property is its id, the
 * CLI flag the id with `_` spelled `-` (the audit's drift #3 was a flag
 * that named something else). In rukh.extension/3 a `flag` other than that
 * is refused unless `flagDiffers` says why (a sentence the docs show); in
 * rukh.extension/2 it stays as published. `false` when refused.
 */
function readFlagDiffers(
  r: DescriptorReader,
  path: string,
  v: JsonObject,
  id: string | undefined,
  flag: string | undefined,
): boolean {
  const at = (k: string) => pointerAppend(path, k);
  if (v.flagDiffers !== undefined) {
    if (r.format !== "rukh.extension/3") {
      r.add(
        at("flagDiffers"),
        "requires_v3",
        "flagDiffers is a rukh.extension/3 field; expected format rukh.extension/3",
      );
      return false;
    }
    const why = r.text(at("flagDiffers"), v.flagDiffers, SUMMARY);
    if (why === undefined) return false;
    if (flag === undefined || id === undefined || flag === defaultFlag(id)) {
      r.add(
        at("flagDiffers"),
        "invalid_value",
        `flagDiffers declares a difference there is none of: the flag is --${flag ?? (id === undefined ? "?" : defaultFlag(id))}, input ${id}'s own name; expected it left out`,
      );
      return false;
    }
    return true;
  }
  if (
    r.format === "rukh.extension/3" &&
    flag !== undefined &&
    id !== undefined &&
    flag !== defaultFlag(id)
  ) {
    r.add(
      at("flag"),
      "flag_drift",
      `--${flag} names input ${id}, which MCP calls ${id} and the CLI would call --${defaultFlag(id)}; expected flag ${defaultFlag(id)} (or none), or flagDiffers saying why they differ`,
    );
    return false;
  }
  return true;
}

function readList(r: DescriptorReader, path: string, v: JsonObject): ListSpec | undefined {
  const at = (k: string) => pointerAppend(path, k);
  const items = readItems(r, at("items"), v.items);
  if (v.maxItems === undefined) {
    r.add(
      at("maxItems"),
      "missing_max_items",
      `a list needs a finite maxItems; expected an integer from 1 to ${L.MAX_LIST_ITEMS}`,
    );
  }
  const maxItems = r.count(at("maxItems"), v.maxItems, L.MAX_LIST_ITEMS);
  const minItems = r.count(at("minItems"), v.minItems, L.MAX_LIST_ITEMS);
  if (maxItems === 0) r.add(at("maxItems"), "invalid_value", "maxItems is 0; expected at least 1");
  if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) {
    r.add(
      at("minItems"),
      "invalid_bounds",
      `minItems ${minItems} exceeds maxItems ${maxItems}; expected minItems ≤ maxItems`,
    );
  }
  if (items === undefined || maxItems === undefined || !maxItems) return undefined;
  return { type: "list", items, ...(minItems !== undefined && { minItems }), maxItems };
}

/** A list's `items`: an object of its own, holding a scalar type and its constraints only. */
function readItems(r: DescriptorReader, path: string, v: JsonValue | undefined) {
  const o = r.object(path, v, ["type", ...ITEM_CONSTRAINTS], ["type"]);
  if (!o) return undefined;
  const t = r.oneOf(pointerAppend(path, "type"), o.type, SCALAR_TYPES);
  if (t === undefined) return undefined;
  for (const key of ITEM_CONSTRAINTS) {
    if (o[key] !== undefined && !(CONSTRAINTS[t] ?? []).includes(key)) {
      r.add(pointerAppend(path, key), "invalid_value", `${key} does not apply to ${t} items`);
      return undefined;
    }
  }
  return readScalar(r, path, o);
}

/** A scalar's constraints, read from `o` whose `type` is already known to be a scalar type. */
function readScalar(r: DescriptorReader, path: string, o: JsonObject): ScalarSpec | undefined {
  const type = o.type as ScalarSpec["type"];
  switch (type) {
    case "boolean":
      return { type };
    case "string":
      return readLengths(r, path, o);
    case "integer":
    case "number":
    case "decimal":
      return readBounds(r, path, o, type);
    case "enum":
      return readEnum(r, path, o);
    default:
      return undefined;
  }
}

function readLengths(r: DescriptorReader, path: string, o: JsonObject): ScalarSpec | undefined {
  const at = (k: string) => pointerAppend(path, k);
  const minLength = r.count(at("minLength"), o.minLength, L.MAX_STRING_INPUT_LENGTH);
  const maxLength = r.count(at("maxLength"), o.maxLength, L.MAX_STRING_INPUT_LENGTH);
  if (
    (o.minLength !== undefined && minLength === undefined) ||
    (o.maxLength !== undefined && maxLength === undefined)
  )
    return undefined;
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    r.add(
      at("minLength"),
      "invalid_bounds",
      `minLength ${minLength} exceeds maxLength ${maxLength}; expected minLength ≤ maxLength`,
    );
    return undefined;
  }
  return {
    type: "string",
    ...(minLength !== undefined && { minLength }),
    ...(maxLength !== undefined && { maxLength }),
  };
}

function readBounds(
  r: DescriptorReader,
  path: string,
  o: JsonObject,
  type: "integer" | "number" | "decimal",
): ScalarSpec | undefined {
  const at = (k: string) => pointerAppend(path, k);
  // Bounds are read with the same decoder as values, so a bound obeys the value rules.
  const bound = (key: "minimum" | "maximum"): number | string | undefined | null => {
    const b = o[key];
    if (b === undefined) return undefined;
    const d = decodeScalarJson({ type } as ScalarSpec, b, numberSourceText(o, key));
    if (!d.ok) {
      r.add(at(key), "invalid_value", `${key}: ${d.message}`);
      return null;
    }
    return d.value as number | string;
  };
  const minimum = bound("minimum");
  const maximum = bound("maximum");
  if (minimum === null || maximum === null) return undefined;
  if (minimum !== undefined && maximum !== undefined) {
    const order =
      type === "decimal"
        ? compareDecimal(minimum as string, maximum as string)
        : (minimum as number) - (maximum as number);
    if (order > 0) {
      r.add(
        at("minimum"),
        "invalid_bounds",
        `minimum ${minimum} exceeds maximum ${maximum}; expected minimum ≤ maximum`,
      );
      return undefined;
    }
  }
  return {
    type,
    ...(minimum !== undefined && { minimum }),
    ...(maximum !== undefined && { maximum }),
  } as ScalarSpec;
}

function readEnum(r: DescriptorReader, path: string, o: JsonObject): ScalarSpec | undefined {
  const at = pointerAppend(path, "values");
  const values = o.values;
  if (!Array.isArray(values) || values.length === 0 || values.length > L.MAX_ENUM_VALUES) {
    r.add(
      at,
      "invalid_enum",
      `got ${shown(values)}; expected 1 to ${L.MAX_ENUM_VALUES} distinct strings`,
    );
    return undefined;
  }
  const strings = values.map((x, i) => r.text(pointerAppend(at, i), x, ENUM_VALUE));
  if (!strings.every((s) => s !== undefined)) return undefined;
  if (new Set(strings).size !== strings.length) {
    r.add(at, "invalid_enum", "an enum value is listed twice; expected distinct strings");
    return undefined;
  }
  return { type: "enum", values: strings as string[] };
}

/** An input's default, decoded and checked against the input's own constraints. */
function readDefault(
  r: DescriptorReader,
  path: string,
  input: InputSpec,
  v: JsonObject,
): InputValue | undefined {
  const raw = v.default!;
  const issues: ValidationIssue<InputIssueCode>[] = [];
  let value: InputValue | undefined;
  if (input.type === "list") {
    if (!Array.isArray(raw)) {
      r.add(path, "invalid_default", `got ${shown(raw)}; expected a list default`);
      return undefined;
    }
    const out: ScalarValue[] = [];
    raw.forEach((x, i) => {
      const d = decodeScalarJson(input.items, x, numberSourceText(raw, i));
      if (d.ok) out.push(d.value);
      else issues.push({ path: `/${i}`, code: d.code, message: d.message });
    });
    value = out;
  } else {
    const d = decodeScalarJson(input as ScalarSpec, raw, numberSourceText(v, "default"));
    if (d.ok) value = d.value;
    else issues.push({ path: "", code: d.code, message: d.message });
  }
  if (issues.length === 0 && value !== undefined) checkInput(input, value, "", issues);
  for (const i of issues)
    r.add(path + i.path, "invalid_default", `default fails its own constraints: ${i.message}`);
  return issues.length === 0 ? value : undefined;
}
