import type { ValidationIssue } from "@rukh/json";

/** Stable codes for every way a profile operation can fail. */
export const PROFILE_ERROR_CODES = [
  "invalid_config",
  "no_active_revision",
  "malformed_archive",
  "unsupported_entry",
  "path_traversal",
  "link_not_allowed",
  "duplicate_path",
  "file_too_large",
  "package_too_large",
  "missing_descriptor",
  "invalid_descriptor",
  "unsigned",
  "malformed_signature",
  "untrusted_publisher",
  "digest_mismatch",
  "bad_signature",
  "publisher_mismatch",
  "extension_conflict",
  "downgrade",
  "version_reused",
  "namespace_denied",
  "group_conflict",
  "reserved_path",
  "source_denied",
  "missing_program",
  "unresolved_import",
  "unsupported_package_json",
  "unknown_extension",
  "route_conflict",
  "tool_name_conflict",
  "tool_too_large",
  "invalid_tool_schema",
  "conflict",
  "lock_timeout",
  "unknown_revision",
  "invalid_revision",
  "invalid_link",
  "invalid_state",
  "store_corrupt",
  "unknown_preset",
  "invalid_cursor",
  "stale_cursor",
  "invalid_key",
  "read_only",
  "io_error",
] as const;

/** One of {@link PROFILE_ERROR_CODES}. */
export type ProfileErrorCode = (typeof PROFILE_ERROR_CODES)[number];

/**
 * The one error type of `@rukh/profile`. `issues` carries every validation
 * problem when the failure came from a validator (owner configuration,
 * descriptor); `cause` is the underlying error when there was one.
 *
 * @example
 * try { await state.install("./pkg"); } catch (e) {
 *   if (e instanceof ProfileError && e.code === "conflict") { // retry on the new base
 *   }
 * }
 */
export class ProfileError extends Error {
  override readonly name = "ProfileError";
  readonly code: ProfileErrorCode;
  readonly issues: readonly ValidationIssue[];

  constructor(
    code: ProfileErrorCode,
    message: string,
    options?: ErrorOptions & { readonly issues?: readonly ValidationIssue[] },
  ) {
    super(message, options);
    this.code = code;
    this.issues = options?.issues ?? [];
  }
}

/** Wraps a Node file-system failure as `io_error`, keeping it as the cause. */
export function ioError(what: string, cause: unknown): ProfileError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ProfileError("io_error", `${what}: ${detail}`, { cause });
}
