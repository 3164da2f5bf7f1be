// The --json envelope of the brand's own commands: one versioned shape for
// every result and every error, so scripts read them all the same way.

/** Version of the envelope; it changes only when a member is removed or changes meaning. */
export const OUTPUT_VERSION = 1;

/**
 * One line of `--json` output of a built-in command:
 * `{"rukhOutput":1,"command":"ext install","result":…}` for a result, or
 * `{"rukhOutput":1,"command":…,"error":{"code","message","exitCode"}}` for
 * an error (docs/schemas/rukh.output.schema.json).
 *
 * @example
 * stdout.write(outputEnvelope(["ext", "list"], { result: [] }));
 */
export function outputEnvelope(
  path: readonly string[],
  body: { readonly result: unknown } | { readonly error: object },
): string {
  return `${JSON.stringify({ rukhOutput: OUTPUT_VERSION, command: path.join(" "), ...body })}\n`;
}
