// How the CLI's own words look: headings and errors in colour on a
// terminal that takes it, and the prefix of a runnable line.

/** Text styling; identity functions when colour is off. */
export interface Style {
  readonly heading: (s: string) => string;
  readonly error: (s: string) => string;
}

/** No styling: colour is off. */
export const PLAIN: Style = { heading: (s) => s, error: (s) => s };
/** Bold headings and red errors, for a terminal that takes colour. */
export const ANSI: Style = {
  heading: (s) => `\u001b[1m${s}\u001b[22m`,
  error: (s) => `\u001b[31m${s}\u001b[39m`,
};

/** Prefix of every line that is a complete, runnable command (a test runs each one). */
export const RUNNABLE = "  $ ";
