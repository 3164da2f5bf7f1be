/** Codes of problems found in a descriptor. */
export const DESCRIPTOR_ISSUE_CODES = [
  "invalid_json",
  "unsupported_format",
  "unknown_field",
  "missing_field",
  "invalid_type",
  "invalid_value",
  "control_character",
  "line_break",
  "invisible_character",
  "too_long",
  "too_many",
  "duplicate_id",
  "route_conflict",
  "flag_conflict",
  "reserved_flag",
  "positional_conflict",
  "required_with_default",
  "invalid_default",
  "invalid_enum",
  "invalid_bounds",
  "missing_max_items",
  "requires_v2",
  "requires_v3",
  "conflicting_hints",
  "machine_requires_result",
  "machine_requires_managed",
  "unknown_feature",
  "invalid_result_schema",
] as const;
/** One of {@link DESCRIPTOR_ISSUE_CODES}. */
export type DescriptorIssueCode = (typeof DESCRIPTOR_ISSUE_CODES)[number];

/** Codes of problems found in supplied input values; the same on the CLI and MCP paths. */
export const INPUT_ISSUE_CODES = [
  "unknown_input",
  "missing_required",
  "null_not_allowed",
  "repeated_input",
  "expected_string",
  "expected_integer",
  "expected_number",
  "expected_decimal",
  "expected_boolean",
  "expected_enum",
  "expected_list",
  "invalid_string",
  "out_of_range",
  "not_in_enum",
  "below_minimum",
  "above_maximum",
  "too_short",
  "too_long",
  "too_few_items",
  "too_many_items",
] as const;
/** One of {@link INPUT_ISSUE_CODES}. */
export type InputIssueCode = (typeof INPUT_ISSUE_CODES)[number];
