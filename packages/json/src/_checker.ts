// The validation kit every Rukh reader of untrusted JSON builds on: it
// collects every issue with its JSON pointer instead of stopping at the first,
// and reports an unknown field one way, with the known name a typo meant. Each
// package brings its own issue codes and its own field rules.

import { pointerAppend, type Validation, type ValidationIssue } from "./_issues.js";
import type { JsonObject } from "./_parse.js";
import { nearestWord } from "./_text.js";

/**
 * How a checker reports a field it does not know: the issue code, and what
 * its documents call a field ("field" in a descriptor, "member" in a config).
 *
 * @example
 * const rule: UnknownFieldRule<"unknown_field"> = { code: "unknown_field", noun: "field" };
 */
export interface UnknownFieldRule<Code extends string> {
  readonly code: Code;
  readonly noun: string;
}

/**
 * Collects the issues found while walking one untrusted JSON document, each
 * with an RFC 6901 pointer, a stable code from `Code` and what was expected.
 * A package's own reader extends it with its readers of strings, lists and so
 * on, and its own codes.
 *
 * @example
 * const c = new JsonChecker<"unknown_field">();
 * c.unknownFields("", { sumary: "x" }, ["summary"], { code: "unknown_field", noun: "field" });
 * c.issues[0]?.message; // 'unknown field "sumary"; did you mean summary? expected one of summary'
 */
export class JsonChecker<Code extends string> {
  /** Every issue found so far, in the order found. */
  readonly issues: ValidationIssue<Code>[] = [];

  /** Records one issue at `path` (a JSON pointer, `""` for the root). */
  add(path: string, code: Code, message: string): void {
    this.issues.push({ path, code, message });
  }

  /**
   * Reports each key of `value` that is not in `allowed`, naming the allowed
   * one it is a typo of, if any (see `nearestWord`).
   */
  unknownFields(
    path: string,
    value: JsonObject,
    allowed: readonly string[],
    rule: UnknownFieldRule<Code>,
  ): void {
    for (const key of Object.keys(value)) {
      if (allowed.includes(key)) continue;
      const near = nearestWord(key, allowed);
      this.add(
        pointerAppend(path, key),
        rule.code,
        `unknown ${rule.noun} ${quoted(key)}; ${near !== undefined ? `did you mean ${near}? ` : ""}expected one of ${allowed.join(", ")}`,
      );
    }
  }

  /** The value read, or every issue found when there is any (or nothing was read). */
  result<T>(value: T | undefined): Validation<T, Code> {
    if (this.issues.length > 0 || value === undefined) return { ok: false, issues: this.issues };
    return { ok: true, value };
  }
}

/** A key as a message shows it: quoted, escaped, and cut short so a hostile key cannot flood the message. */
function quoted(key: string): string {
  const text = JSON.stringify(key);
  return text.length > 48 ? `${text.slice(0, 45)}…` : text;
}
