// A command line as a POSIX shell reads it: what a recovery line prints, so
// that it runs as printed whatever its words hold.

/** `word` as one word of a POSIX shell command line, quoted only when it must be. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `words` as one command line a POSIX shell runs as these words: each word
 * quoted only when it must be.
 *
 * @example
 * commandLine(["acme", "trust", "rotate", "acme", "my key.pub"]); // "acme trust rotate acme 'my key.pub'"
 */
export function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(" ");
}
