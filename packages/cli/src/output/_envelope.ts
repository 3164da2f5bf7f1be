// The one --json envelope of every command: a built-in's result, an
// extension command's outcome, or the error of a command that stopped
// before either, so scripts read them all the same way
// (docs/schemas/rukh.output.schema.json).

import type { OutcomeDiagnostic, OutcomeEnvelope } from "@rukh/core";
import { terminalJson } from "./_terminal.js";

/**
 * Version of the envelope; it changes only when a member is removed, moves
 * or changes meaning. 2: an extension command's outcome moved inside the
 * envelope (`outcome`), and errors moved to stdout with a `recovery` line.
 */
export const OUTPUT_VERSION = 2;

/** One problem of an error, with where it is (a JSON pointer, or a file). */
export interface OutputIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Why a command stopped without a result or an outcome.
 *
 * @example
 * const e: OutputError = { code: "usage", message: "--limit: got \"x\"", exitCode: 2, recovery: "acme echo --help" };
 */
export interface OutputError {
  /** `usage`, `refused`, `state_error`, or a more precise code (`downgrade`). */
  readonly code: string;
  readonly message: string;
  /** The exit status the command ends with (2, 4 or 5). */
  readonly exitCode: number;
  /** A command line that shows the way on, as printed after `  $ ` without --json. */
  readonly recovery?: string;
  readonly issues?: readonly OutputIssue[];
}

/** An extension command's outcome envelope, and what MCP sends beside it for a failure. */
export type OutputOutcome = OutcomeEnvelope & { readonly diagnostic?: OutcomeDiagnostic };

/** What one envelope carries: exactly one of a result, an outcome or an error. */
export type OutputBody =
  | { readonly result: unknown }
  | { readonly outcome: OutputOutcome }
  | { readonly error: OutputError };

/**
 * One line of `--json` output:
 * `{"rukhOutput":2,"command":"ext install","result":…}` for a built-in's
 * result, `{"rukhOutput":2,"command":"acme greet","outcome":{…}}` for an
 * extension command's call, or `{"rukhOutput":2,"command":…,"error":{…}}`.
 * `path` is the command's path, `null` when the words named no command.
 *
 * @example
 * stdout.write(outputEnvelope(["ext", "list"], { result: [] }));
 */
export function outputEnvelope(path: readonly string[] | null, body: OutputBody): string {
  return `${JSON.stringify({ rukhOutput: OUTPUT_VERSION, command: path === null ? null : path.join(" "), ...body })}\n`;
}

/**
 * Writes a built-in's one `--json` envelope to its stdout (a
 * `BuiltinContext` is what it takes): on a terminal
 * with DEL, C1 controls and invisible characters escaped (`terminalJson`),
 * still the same JSON value.
 *
 * @example
 * printEnvelope(ctx, { result: { installed: [] } });
 */
export function printEnvelope(
  ctx: {
    /** The built-in's own path. */
    readonly path: readonly string[];
    readonly stdout: { write(text: string): unknown };
    /** stdout is a terminal. */
    readonly outTTY?: boolean;
  },
  body: OutputBody,
): void {
  const line = outputEnvelope(ctx.path, body);
  ctx.stdout.write(ctx.outTTY === true ? terminalJson(line) : line);
}
