// The field readers of the descriptor grammar: each reads one JSON value of
// an expected shape, reports what is wrong with its pointer and a descriptor
// issue code, and returns `undefined` for what could not be read.

import {
  codePointLength,
  findLineBreak,
  JsonChecker,
  type JsonObject,
  type JsonValue,
  pointerAppend,
} from "@rukh/json";
import type { DescriptorIssueCode } from "./_codes.js";
import { CONTROL, WORD } from "./_ids.js";
import * as L from "./_limits.js";
import type { DescriptorFormat } from "./_model.js";
import { codePointName, shown } from "./_values.js";

/** Whether `v` is a JSON object (not an array, not null). */
export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What a value is, as a message says it after "got". */
export const typeName = (v: JsonValue | undefined) =>
  v === undefined
    ? "nothing"
    : v === null
      ? "null"
      : Array.isArray(v)
        ? "an array"
        : `a ${typeof v}`;

/** What a string read by {@link DescriptorReader.string} must match, and how long it may be. */
export interface StringRule {
  readonly re?: RegExp;
  readonly what?: string;
  readonly max?: number;
}

/**
 * How a text field is read by {@link DescriptorReader.text}: its longest
 * length in code points, whether it must hold more than white space, and
 * whether it is one line (what is printed as a line of its own or inside
 * one: a summary, an enum value) or lines of prose (a description).
 */
export interface TextRule {
  readonly max: number;
  readonly required: boolean;
  readonly oneLine: boolean;
}

/** An extension's, a group's, a command's or an input's summary: one line, never blank. */
export const SUMMARY: TextRule = { max: L.MAX_SUMMARY_LENGTH, required: true, oneLine: true };
/** A group's, a command's or an input's description: lines of prose, which help and docs indent. */
export const DESCRIPTION: TextRule = {
  max: L.MAX_DESCRIPTION_LENGTH,
  required: false,
  oneLine: false,
};
/** A value of an enum input: one line (help shows it in a placeholder, `<a|b>`). */
export const ENUM_VALUE: TextRule = { max: L.MAX_SUMMARY_LENGTH, required: false, oneLine: true };

/** Reads a descriptor's fields, collecting every issue; `format` is the one being read. */
export class DescriptorReader extends JsonChecker<DescriptorIssueCode> {
  format: DescriptorFormat = "rukh.extension/2";

  /** Checks the object's fields against the allowed and required names. */
  object(
    path: string,
    v: JsonValue | undefined,
    allowed: readonly string[],
    required: readonly string[],
  ): JsonObject | undefined {
    if (!isObject(v)) {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected an object`);
      return undefined;
    }
    this.unknownFields(path, v, allowed, { code: "unknown_field", noun: "field" });
    for (const key of required) {
      if (!Object.hasOwn(v, key))
        this.add(pointerAppend(path, key), "missing_field", `field ${key} is required`);
    }
    return v;
  }

  string(path: string, v: JsonValue | undefined, rule: StringRule): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string") {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected a string`);
      return undefined;
    }
    if (!v.isWellFormed() || v.includes("\u0000")) {
      this.add(
        path,
        "invalid_value",
        "string holds an unpaired surrogate or U+0000; expected well-formed text",
      );
      return undefined;
    }
    const max = rule.max ?? L.MAX_ID_LENGTH;
    if (codePointLength(v) > max) {
      this.add(
        path,
        "too_long",
        `string is longer than ${max} code points; expected a shorter one`,
      );
      return undefined;
    }
    if (rule.re && !rule.re.test(v)) {
      this.add(path, "invalid_value", `got ${shown(v)}; expected ${rule.what}`);
      return undefined;
    }
    return v;
  }

  /**
   * Text shown in help, docs and tool lists, read by `rule`: it may not
   * steer a terminal (`control_character`), and one-line text may not break
   * a line (`line_break`), which would let it begin a line of its own and
   * pass for one the CLI prints.
   */
  text(path: string, v: JsonValue | undefined, rule: TextRule): string | undefined {
    if (v === undefined) return undefined;
    const s = this.string(path, v, { max: rule.max });
    if (s === undefined) return undefined;
    if (rule.required && s.trim() === "")
      this.add(path, "invalid_value", "got an empty text; expected a non-empty one");
    const brk = rule.oneLine ? findLineBreak(s) : undefined;
    if (brk !== undefined) {
      this.add(
        path,
        "line_break",
        `got ${codePointName(brk.codePoint)} (${brk.kind}) at character ${brk.offset}; expected one line of text (only a description may break lines)`,
      );
      return s;
    }
    const at = s.search(CONTROL);
    if (at >= 0)
      this.add(
        path,
        "control_character",
        `got control character ${codePointName(s.charCodeAt(at))} at character ${codePointLength(s.slice(0, at))}; expected text with no control characters other than ${rule.oneLine ? "tab" : "newline and tab"}`,
      );
    return s;
  }

  boolean(path: string, v: JsonValue | undefined): boolean | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected true or false`);
      return undefined;
    }
    return v;
  }

  count(path: string, v: JsonValue | undefined, max: number): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) {
      this.add(path, "invalid_value", `got ${shown(v)}; expected an integer from 0 to ${max}`);
      return undefined;
    }
    return v;
  }

  array(path: string, v: JsonValue | undefined, max: number): JsonValue[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      this.add(path, "invalid_type", `got ${typeName(v)}; expected an array`);
      return undefined;
    }
    if (v.length > max) {
      this.add(path, "too_many", `got ${v.length} entries; expected at most ${max}`);
      return undefined;
    }
    return v;
  }

  words(path: string, v: JsonValue | undefined): string[] | undefined {
    const arr = this.array(path, v, L.MAX_PATH_WORDS);
    if (arr === undefined) return undefined;
    if (arr.length === 0) {
      this.add(path, "invalid_value", "got an empty path; expected at least one word");
      return undefined;
    }
    const words = arr.map((w, i) =>
      this.string(pointerAppend(path, i), w, { re: WORD, what: "a lowercase kebab-case word" }),
    );
    return words.every((w) => w !== undefined) ? (words as string[]) : undefined;
  }

  oneOf(path: string, v: JsonValue | undefined, allowed: readonly string[]): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string" || !allowed.includes(v)) {
      this.add(path, "invalid_value", `got ${shown(v)}; expected one of ${allowed.join(", ")}`);
      return undefined;
    }
    return v;
  }

  /** Adds issues found by a rule over what was already read. */
  addAll(issues: readonly { path: string; code: DescriptorIssueCode; message: string }[]): void {
    for (const i of issues) this.add(i.path, i.code, i.message);
  }
}
