// A command line as a POSIX shell reads it: what a recovery line prints, so
// that it runs as printed whatever its words hold.

/**
 * `word` as one word of a POSIX shell command line, quoted only when it must be.
 *
 * @example
 * shellWord("my key.pub"); // "'my key.pub'"
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `words` as one command line a POSIX shell runs as these words: each word
 * quoted only when it must be, after the assignments of `env` (variables
 * set for that command alone; their names are the caller's, never quoted).
 *
 * @example
 * commandLine(["acme", "trust", "rotate", "acme", "my key.pub"]); // "acme trust rotate acme 'my key.pub'"
 * commandLine(["acme", "mcp", "serve"], { ACME_JOURNAL_DIR: "/var/j" }); // "ACME_JOURNAL_DIR=/var/j acme mcp serve"
 */
export function commandLine(
  words: readonly string[],
  env: Readonly<Record<string, string>> = {},
): string {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${shellWord(value)}`);
  return [...assignments, ...words.map(shellWord)].join(" ");
}
