// Which command shows the way on from a failure the profile reports: the
// words, after the brand, of a command that runs in the state the failure
// left and shows what to change.

/** Extensions, their versions and what they declare. */
const EXTENSIONS = ["ext", "list"] as const;
/** Publishers, their keys and namespaces. */
const PUBLISHERS = ["trust", "list"] as const;
/** What an install checks, and how to check a package before it is installed. */
const PACKAGE = ["ext", "validate", "--help"] as const;
/** The active configuration. */
const CONFIG = ["profile", "show"] as const;
/** The state directory as a whole. */
const DOCTOR = ["doctor"] as const;

/** The command for each `ProfileError` code that has a better one than the failed command's help. */
const BY_CODE: Readonly<Record<string, readonly string[]>> = {
  unknown_extension: EXTENSIONS,
  extension_conflict: EXTENSIONS,
  downgrade: EXTENSIONS,
  version_reused: EXTENSIONS,
  group_conflict: EXTENSIONS,
  reserved_path: EXTENSIONS,
  route_conflict: EXTENSIONS,
  tool_name_conflict: EXTENSIONS,
  untrusted_publisher: PUBLISHERS,
  namespace_denied: PUBLISHERS,
  source_denied: PUBLISHERS,
  publisher_mismatch: PUBLISHERS,
  bad_signature: PUBLISHERS,
  malformed_archive: PACKAGE,
  unsupported_entry: PACKAGE,
  path_traversal: PACKAGE,
  link_not_allowed: PACKAGE,
  duplicate_path: PACKAGE,
  file_too_large: PACKAGE,
  package_too_large: PACKAGE,
  missing_descriptor: PACKAGE,
  invalid_descriptor: PACKAGE,
  unsigned: PACKAGE,
  malformed_signature: PACKAGE,
  digest_mismatch: PACKAGE,
  missing_program: PACKAGE,
  unresolved_import: PACKAGE,
  unsupported_package_json: PACKAGE,
  tool_too_large: PACKAGE,
  invalid_tool_schema: PACKAGE,
  invalid_config: CONFIG,
  conflict: CONFIG,
  unknown_revision: ["profile", "history"],
  unknown_preset: ["preset", "list"],
  no_active_revision: ["ext", "install", "--help"],
  lock_timeout: DOCTOR,
  invalid_revision: DOCTOR,
  invalid_state: DOCTOR,
  store_corrupt: DOCTOR,
};

/**
 * The words after the brand of the command that shows the way on from an
 * error with `code` of a command at `path`: a better one for what the code
 * names, else the command's own `--help`.
 *
 * @example
 * recoveryOf("downgrade", ["ext", "install"]); // ["ext", "list"]
 */
export function recoveryOf(code: string, path: readonly string[]): readonly string[] {
  return Object.hasOwn(BY_CODE, code) ? BY_CODE[code]! : [...path, "--help"];
}

/** What an error nothing else explains points at: `doctor`, which looks at the whole state directory. */
export const UNEXPLAINED: readonly string[] = DOCTOR;
