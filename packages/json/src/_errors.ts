/** Stable codes for every way strict reading or canonicalization can fail. */
export const JSON_ERROR_CODES = [
  "invalid_utf8",
  "byte_order_mark",
  "unexpected_end",
  "unexpected_token",
  "invalid_escape",
  "lone_surrogate",
  "control_character",
  "invalid_number",
  "number_overflow",
  "unsafe_integer",
  "duplicate_key",
  "trailing_content",
  "too_large",
  "too_deep",
  "too_many_nodes",
  "invalid_limits",
  "not_json",
] as const;

/** One of {@link JSON_ERROR_CODES}. */
export type JsonErrorCode = (typeof JSON_ERROR_CODES)[number];

// The codes that refuse JSON text for its size, depth, node count or an
// unsafe integer, or limits that are themselves wrong; every other code says
// the input is not strict JSON text at all.
const REFUSAL_CODES: readonly JsonErrorCode[] = [
  "unsafe_integer",
  "too_large",
  "too_deep",
  "too_many_nodes",
  "invalid_limits",
];

/**
 * The codes of {@link JSON_ERROR_CODES} that say the input is not strict JSON
 * text at all (what JSON-RPC answers as a parse error), as opposed to JSON
 * refused for its size, depth, node count or an unsafe integer, or limits
 * that are themselves wrong.
 *
 * @example
 * const r = parseJson(line);
 * if (!r.ok && JSON_PARSE_ERROR_CODES.includes(r.error.code)) reply(-32700);
 */
export const JSON_PARSE_ERROR_CODES: readonly JsonErrorCode[] = Object.freeze(
  JSON_ERROR_CODES.filter((code) => !REFUSAL_CODES.includes(code)),
);

/**
 * The one error type of `@rukh/json`.
 *
 * `offset` is the byte offset in the UTF-8 input where reading stopped (for
 * parse failures) and is absent for failures that have no input position
 * (canonicalization of an in-memory value, invalid limits).
 *
 * @example
 * const r = parseJson('{"a":1,"a":2}');
 * if (!r.ok) console.log(r.error.code, r.error.offset); // duplicate_key 7
 */
export class JsonError extends Error {
  override readonly name = "JsonError";
  readonly code: JsonErrorCode;
  readonly offset: number | undefined;

  constructor(code: JsonErrorCode, message: string, offset?: number, options?: ErrorOptions) {
    super(offset === undefined ? message : `${message} (at byte ${offset})`, options);
    this.code = code;
    this.offset = offset;
  }
}
