/**
 * Every stable code a result-schema check or a result validation can report.
 *
 * Limits and input: `invalid_limits`, `invalid_json`, `not_json`, `too_large`,
 * `too_deep`, `too_many_nodes`, `too_slow`. Schema checking: `not_a_schema`,
 * `missing_keyword`, `unknown_keyword`, `unsupported_keyword`,
 * `misplaced_keyword`, `invalid_keyword_value`, `inverted_bounds`,
 * `invalid_required`, `invalid_enum`, `line_break` (in a title). Result validation: `invalid_declaration`,
 * `invalid_result`, `kind_mismatch`, `type_mismatch`, `missing_property`,
 * `additional_property`, `too_short`, `too_long`, `below_minimum`,
 * `above_maximum`, `not_in_enum`.
 *
 * @example
 * COMMAND_RESULT_ISSUE_CODES.includes("too_large"); // true
 */
export const COMMAND_RESULT_ISSUE_CODES = [
  "invalid_limits",
  "invalid_json",
  "not_json",
  "too_large",
  "too_deep",
  "too_many_nodes",
  "too_slow",
  "not_a_schema",
  "missing_keyword",
  "unknown_keyword",
  "unsupported_keyword",
  "misplaced_keyword",
  "invalid_keyword_value",
  "inverted_bounds",
  "invalid_required",
  "invalid_enum",
  "line_break",
  "invalid_declaration",
  "invalid_result",
  "kind_mismatch",
  "type_mismatch",
  "missing_property",
  "additional_property",
  "too_short",
  "too_long",
  "below_minimum",
  "above_maximum",
  "not_in_enum",
] as const;

/**
 * One of {@link COMMAND_RESULT_ISSUE_CODES}.
 *
 * @example
 * const code: CommandResultIssueCode = "type_mismatch";
 */
export type CommandResultIssueCode = (typeof COMMAND_RESULT_ISSUE_CODES)[number];
