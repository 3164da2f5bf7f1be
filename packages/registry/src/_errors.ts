/** Stable codes of every way reaching a registry can fail. */
export const REGISTRY_ERROR_CODES = [
  "invalid_spec",
  "registry_unreachable",
  "registry_auth",
  "registry_invalid",
  "not_found",
  "no_matching_version",
  "package_too_large",
  "integrity_mismatch",
] as const;

/** One of {@link REGISTRY_ERROR_CODES}. */
export type RegistryErrorCode = (typeof REGISTRY_ERROR_CODES)[number];

/**
 * The one error type of `@rukh/registry`. Its message is one line and names
 * the registry it is about.
 *
 * @example
 * try { await resolvePackage("@jane/hello", npm); } catch (e) {
 *   if (e instanceof RegistryError && e.code === "registry_auth") console.error(e.message);
 * }
 */
export class RegistryError extends Error {
  override readonly name = "RegistryError";
  readonly code: RegistryErrorCode;

  constructor(code: RegistryErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
