// The bytes of a command line: Node hands the program its arguments decoded
// as UTF-8, each byte it cannot decode replaced by U+FFFD, so an argument
// that was not UTF-8 would run as something else. Where the process's own
// command line can be read (Linux: /proc/self/cmdline), an argument that
// holds U+FFFD is checked against its bytes, and one that was not UTF-8 is
// found, with the offset of its first bad byte; MCP refuses the same bytes.

import { readFileSync } from "node:fs";

/** An argument whose bytes are not UTF-8: its index in argv, and its first byte that is not. */
export interface UndecodableArgument {
  readonly index: number;
  readonly offset: number;
  readonly byte: number;
}

/** The words of a NUL-separated command line. */
function wordsOf(raw: Buffer): Buffer[] {
  const words: Buffer[] = [];
  let start = 0;
  for (let i = raw.indexOf(0); i !== -1; i = raw.indexOf(0, start)) {
    words.push(raw.subarray(start, i));
    start = i + 1;
  }
  if (start < raw.length) words.push(raw.subarray(start));
  return words;
}

/** The offset of the first byte of `bytes` that UTF-8 decoding replaced, or -1. */
function firstBadByte(bytes: Buffer): number {
  const again = Buffer.from(bytes.toString("utf8"), "utf8");
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== again[i]) return i;
  return -1;
}

/**
 * The first of `argv` (the process's arguments after the program) whose
 * bytes were not UTF-8, or `undefined`: none was, none holds U+FFFD, or the
 * process's command line cannot be read or is not where `argv` came from
 * (a CLI run in-process with arguments of its own).
 */
export function undecodableArgument(
  argv: readonly string[],
  cmdline = "/proc/self/cmdline",
): UndecodableArgument | undefined {
  if (!argv.some((a) => a.includes("\uFFFD"))) return undefined;
  let raw: Buffer;
  try {
    raw = readFileSync(cmdline);
  } catch {
    return undefined;
  }
  const words = wordsOf(raw);
  if (words.length < argv.length) return undefined;
  const tail = words.slice(words.length - argv.length);
  if (tail.some((w, i) => w.toString("utf8") !== argv[i])) return undefined;
  for (let index = 0; index < tail.length; index++) {
    const offset = firstBadByte(tail[index]!);
    if (offset !== -1) return { index, offset, byte: tail[index]![offset]! };
  }
  return undefined;
}
