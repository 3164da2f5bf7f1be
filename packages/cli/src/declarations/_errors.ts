/**
 * Stable codes of {@link CliError}: misuse of the package API, never a user's
 * command line (those become messages on stderr and exit code 2).
 *
 * @example
 * if (e instanceof CliError && e.code === "unknown_shell") showShells();
 */
export const CLI_ERROR_CODES = ["invalid_option", "unknown_shell", "builtin_conflict"] as const;

/**
 * One of {@link CLI_ERROR_CODES}.
 *
 * @example
 * const code: CliErrorCode = "unknown_shell";
 */
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/**
 * The one error type of `@rukh/cli`, thrown only for invalid package-API use.
 *
 * @example
 * try { completionScript("fish", "acme"); } catch (e) { if (e instanceof CliError) console.error(e.code); }
 */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
