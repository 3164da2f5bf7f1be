import { codePointLength, type JsonValue } from "@rukh/json";
import type { InputIssueCode } from "./_codes.js";
import { MAX_DECIMAL_LENGTH, MAX_STRING_INPUT_LENGTH } from "./_limits.js";
import type { ScalarSpec, ScalarValue } from "./_model.js";

/** The exact grammars of §4; nothing else is accepted as text. */
const INTEGER_PATTERN = "^-?(0|[1-9][0-9]*)$";
export const DECIMAL_PATTERN = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$";
const INTEGER_RE = new RegExp(INTEGER_PATTERN);
const DECIMAL_RE = new RegExp(DECIMAL_PATTERN);
const NUMBER_RE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export type Decoded =
  | { ok: true; value: ScalarValue }
  | { ok: false; code: InputIssueCode; message: string };

const bad = (code: InputIssueCode, message: string): Decoded => ({ ok: false, code, message });

/**
 * A code point as messages name it.
 *
 * @example
 * codePointName(0x0a); // "U+000A"
 */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Shows a received value in a message, shortened. */
export function shown(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value));
  return text.length > 48 ? `${text.slice(0, 45)}…` : text;
}

function stringValue(s: string): Decoded {
  if (!s.isWellFormed())
    return bad(
      "invalid_string",
      "string holds an unpaired surrogate; expected well-formed Unicode",
    );
  if (s.includes("\u0000"))
    return bad("invalid_string", "string holds U+0000; expected no NUL characters");
  if (codePointLength(s) > MAX_STRING_INPUT_LENGTH) {
    return bad(
      "too_long",
      `string is longer than ${MAX_STRING_INPUT_LENGTH} code points; expected a shorter string`,
    );
  }
  return { ok: true, value: s };
}

function decimalValue(s: string): Decoded {
  if (s.length > MAX_DECIMAL_LENGTH || !DECIMAL_RE.test(s)) {
    return bad(
      "expected_decimal",
      `got ${shown(s)}; expected an exact decimal of at most ${MAX_DECIMAL_LENGTH} characters: optional '-', digits without leading zeros, optional '.' and digits`,
    );
  }
  return { ok: true, value: s };
}

/**
 * The exact integer a JSON number literal denotes, or why it is not one. Works
 * on the literal text so that `1.0000000000000001` is not taken for 1 and
 * `9007199254740993` is out of range rather than rounded.
 */
function integerFromLiteral(text: string): Decoded {
  const m = NUMBER_RE.exec(text);
  if (!m) return bad("expected_integer", `got ${shown(text)}; expected an integer`);
  const negative = text.startsWith("-");
  const intDigits = m[1]!;
  const fracDigits = m[2] ? m[2].slice(1) : "";
  const exp = m[3] ? Number(m[3].slice(1)) : 0;
  let digits = (intDigits + fracDigits).replace(/^0+/, "");
  let scale = exp - fracDigits.length;
  if (digits === "") return { ok: true, value: 0 };
  const trimmed = digits.replace(/0+$/, "");
  scale += digits.length - trimmed.length;
  digits = trimmed;
  if (scale < 0)
    return bad("expected_integer", `got ${shown(text)}; expected an integer (no fractional part)`);
  if (digits.length + scale > 16) return outOfRange(text);
  const magnitude = BigInt(digits) * 10n ** BigInt(scale);
  if (magnitude > MAX_SAFE) return outOfRange(text);
  const value = Number(magnitude);
  return { ok: true, value: negative ? -value : value };
}

function outOfRange(text: string): Decoded {
  return bad(
    "out_of_range",
    `integer ${shown(text)} is outside ±(2^53−1); expected a safe integer`,
  );
}

/**
 * Decodes one command-line token into a typed scalar. Integers take only
 * `-?(0|[1-9][0-9]*)` (no hex, octal, `+`, underscores or spaces); numbers the
 * JSON number grammar; decimals the exact decimal grammar; booleans `true` or
 * `false`; enum and string values are taken as they are.
 */
export function decodeScalarText(spec: ScalarSpec, text: string): Decoded {
  switch (spec.type) {
    case "string":
    case "enum":
      return stringValue(text);
    case "integer":
      if (!INTEGER_RE.test(text)) {
        return bad(
          "expected_integer",
          `got ${shown(text)}; expected an integer: optional '-' and digits without leading zeros`,
        );
      }
      return integerFromLiteral(text);
    case "number": {
      if (!NUMBER_RE.test(text))
        return bad("expected_number", `got ${shown(text)}; expected a number in JSON notation`);
      const n = Number(text);
      if (!Number.isFinite(n))
        return bad(
          "out_of_range",
          `number ${shown(text)} overflows binary64; expected a finite number`,
        );
      return { ok: true, value: n === 0 ? 0 : n };
    }
    case "decimal":
      return decimalValue(text);
    case "boolean":
      if (text === "true") return { ok: true, value: true };
      if (text === "false") return { ok: true, value: false };
      return bad("expected_boolean", `got ${shown(text)}; expected true or false`);
  }
}

/**
 * Decodes one JSON value into a typed scalar. `sourceText` is the number's
 * literal when the JSON was read with exact numbers (see `numberSourceText` in
 * `@rukh/json`); integers are judged on it.
 */
export function decodeScalarJson(
  spec: ScalarSpec,
  value: JsonValue,
  sourceText: string | undefined,
): Decoded {
  if (value === null)
    return bad(
      "null_not_allowed",
      "got null; null never means omitted: leave the input out instead",
    );
  switch (spec.type) {
    case "string":
      return typeof value === "string"
        ? stringValue(value)
        : bad("expected_string", `got ${shown(value)}; expected a string`);
    case "enum":
      return typeof value === "string"
        ? stringValue(value)
        : bad("expected_enum", `got ${shown(value)}; expected one of the enum strings`);
    case "integer":
      if (typeof value !== "number")
        return bad("expected_integer", `got ${shown(value)}; expected an integer`);
      return integerFromLiteral(sourceText ?? String(value));
    case "number":
      if (typeof value !== "number")
        return bad("expected_number", `got ${shown(value)}; expected a number`);
      return { ok: true, value: value === 0 ? 0 : value };
    case "decimal":
      if (typeof value !== "string") {
        return bad(
          "expected_decimal",
          `got ${shown(value)}; expected an exact decimal as a JSON string, such as "12.50"`,
        );
      }
      return decimalValue(value);
    case "boolean":
      return typeof value === "boolean"
        ? { ok: true, value }
        : bad("expected_boolean", `got ${shown(value)}; expected true or false`);
  }
}

/**
 * Checks an already typed scalar against its type and declared constraints;
 * returns undefined when it conforms. The one place constraints are applied,
 * whichever path decoded the value.
 */
export function checkScalar(
  spec: ScalarSpec,
  value: unknown,
): { code: InputIssueCode; message: string } | undefined {
  switch (spec.type) {
    case "string": {
      if (typeof value !== "string")
        return { code: "expected_string", message: `got ${shown(value)}; expected a string` };
      const d = stringValue(value);
      if (!d.ok) return d;
      const n = codePointLength(value);
      if (spec.minLength !== undefined && n < spec.minLength) {
        return {
          code: "too_short",
          message: `string has ${n} code points; expected at least ${spec.minLength}`,
        };
      }
      if (spec.maxLength !== undefined && n > spec.maxLength) {
        return {
          code: "too_long",
          message: `string has ${n} code points; expected at most ${spec.maxLength}`,
        };
      }
      return undefined;
    }
    case "enum": {
      if (typeof value !== "string")
        return {
          code: "expected_enum",
          message: `got ${shown(value)}; expected one of the enum strings`,
        };
      if (!spec.values.includes(value)) {
        return {
          code: "not_in_enum",
          message: `got ${shown(value)}; expected one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}`,
        };
      }
      return undefined;
    }
    case "integer":
    case "number": {
      const integer = spec.type === "integer";
      if (
        typeof value !== "number" ||
        !Number.isFinite(value) ||
        (integer && !Number.isInteger(value))
      ) {
        return {
          code: integer ? "expected_integer" : "expected_number",
          message: `got ${shown(value)}; expected ${integer ? "an integer" : "a finite number"}`,
        };
      }
      if (integer && !Number.isSafeInteger(value))
        return outOfRange(String(value)) as { code: InputIssueCode; message: string };
      if (spec.minimum !== undefined && value < spec.minimum) {
        return {
          code: "below_minimum",
          message: `got ${value}; expected at least ${spec.minimum}`,
        };
      }
      if (spec.maximum !== undefined && value > spec.maximum) {
        return { code: "above_maximum", message: `got ${value}; expected at most ${spec.maximum}` };
      }
      return undefined;
    }
    case "decimal": {
      if (typeof value !== "string")
        return {
          code: "expected_decimal",
          message: `got ${shown(value)}; expected an exact decimal string`,
        };
      const d = decimalValue(value);
      if (!d.ok) return d;
      if (spec.minimum !== undefined && compareDecimal(value, spec.minimum) < 0) {
        return {
          code: "below_minimum",
          message: `got ${value}; expected at least ${spec.minimum}`,
        };
      }
      if (spec.maximum !== undefined && compareDecimal(value, spec.maximum) > 0) {
        return { code: "above_maximum", message: `got ${value}; expected at most ${spec.maximum}` };
      }
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean"
        ? undefined
        : { code: "expected_boolean", message: `got ${shown(value)}; expected true or false` };
  }
}

/**
 * Compares two decimals in the exact grammar without floating point.
 *
 * @example
 * compareDecimal("1.50", "1.5"); // 0
 */
export function compareDecimal(a: string, b: string): number {
  const x = splitDecimal(a);
  const y = splitDecimal(b);
  if (x.zero && y.zero) return 0;
  if (x.negative !== y.negative) return x.negative ? -1 : 1;
  const sign = x.negative ? -1 : 1;
  if (x.int.length !== y.int.length) return x.int.length < y.int.length ? -sign : sign;
  if (x.int !== y.int) return x.int < y.int ? -sign : sign;
  const len = Math.max(x.frac.length, y.frac.length);
  const fx = x.frac.padEnd(len, "0");
  const fy = y.frac.padEnd(len, "0");
  if (fx === fy) return 0;
  return fx < fy ? -sign : sign;
}

function splitDecimal(s: string): { negative: boolean; int: string; frac: string; zero: boolean } {
  const negative = s.startsWith("-");
  const body = negative ? s.slice(1) : s;
  const dot = body.indexOf(".");
  const int = dot < 0 ? body : body.slice(0, dot);
  const frac = dot < 0 ? "" : body.slice(dot + 1).replace(/0+$/, "");
  const zero = int === "0" && frac === "";
  return { negative: negative && !zero, int, frac, zero };
}
