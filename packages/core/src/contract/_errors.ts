/**
 * Stable codes of {@link CoreError}: local failures of the core itself, never
 * an invocation's outcome (those are `InvocationOutcome` values).
 *
 * @example
 * CORE_ERROR_CODES.includes("journal_corrupt"); // true
 */
export const CORE_ERROR_CODES = [
  "invalid_options",
  "journal_corrupt",
  "journal_too_large",
  "journal_failed",
  "state_unavailable",
] as const;

/**
 * One of {@link CORE_ERROR_CODES}.
 *
 * @example
 * const code: CoreErrorCode = "journal_failed";
 */
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/**
 * The one error type of `@rukh/core`, thrown only at I/O boundaries (creating
 * the core, reading or writing the journal). `code` is stable; `cause`
 * carries the underlying error.
 *
 * @example
 * try { await readJournal(state.root); } catch (e) { if (e instanceof CoreError && e.code === "journal_corrupt") alert(e.message); }
 */
export class CoreError extends Error {
  override readonly name = "CoreError";
  readonly code: CoreErrorCode;

  constructor(code: CoreErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
