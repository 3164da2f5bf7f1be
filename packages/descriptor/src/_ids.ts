// The spellings of a descriptor's ids and names: one home, read by the
// descriptor grammar and by profile, which names extensions and commands in
// its owner configuration.

/**
 * An extension id: lowercase dotted words such as `acme.files`.
 *
 * @example
 * EXTENSION_ID_PATTERN.test("acme.files"); // true
 */
export const EXTENSION_ID_PATTERN = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$/;
/**
 * A publisher id: one lowercase kebab-case word such as `acme`.
 *
 * @example
 * PUBLISHER_ID_PATTERN.test("acme"); // true
 */
export const PUBLISHER_ID_PATTERN = /^[a-z][a-z0-9-]*$/;
/**
 * A command id: lowercase letters and digits joined by `_` or `-`, such as `count_lines`.
 *
 * @example
 * COMMAND_ID_PATTERN.test("count-lines"); // true
 */
export const COMMAND_ID_PATTERN = /^[a-z][a-z0-9]*([_-][a-z0-9]+)*$/;
/** An input id: snake_case, such as `max_depth`. */
export const INPUT_ID = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/**
 * An action or resource a command requests, such as `fs.read`.
 *
 * @example
 * REQUEST_NAME_PATTERN.test("fs.read"); // true
 */
export const REQUEST_NAME_PATTERN = /^[a-z][a-z0-9_.:-]*$/;
/** A word of a command or group path, or a flag name: lowercase kebab-case. */
export const WORD = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** A short flag: one ASCII letter. */
export const SHORT = /^[a-zA-Z]$/;
/** A program path inside the package: `/`-separated, no `.` or `..` segments. */
export const PROGRAM = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
/** C0 controls other than tab and newline, DEL, and the C1 controls. */
export const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** A semantic version (semver 2.0.0). */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-((0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(\+([0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*))?$/;
