// Characters that end a line: where a terminal, a Markdown renderer, an
// editor or a model may start a new one. Text meant to stay on one line (a
// summary, a title, an enum value, a member name) refuses them: any one of
// them would let that text begin a line of its own in what its reader sees,
// and look like the lines the program around it prints.

import { codePointLength } from "./_issues.js";

/** What a reader is told a line break is. */
type Kind =
  | "a line feed"
  | "a line tabulation"
  | "a form feed"
  | "a carriage return"
  | "a next line"
  | "a line separator"
  | "a paragraph separator";

const KINDS: Readonly<Record<number, Kind>> = {
  10: "a line feed",
  11: "a line tabulation",
  12: "a form feed",
  13: "a carriage return",
  133: "a next line",
  8232: "a line separator",
  8233: "a paragraph separator",
};

/**
 * Every line break: LF, VT, FF, CR, NEL, and Unicode's line and paragraph
 * separators (general categories Zl and Zp, which hold U+2028 and U+2029
 * alone). Written out, not `\p{Zl}`, so that every Node line finds the same set.
 */
const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/;

/** A line break found in a text: its code point, its offset in code points, what it is. */
export interface LineBreak {
  readonly codePoint: number;
  readonly offset: number;
  readonly kind: Kind;
}

/**
 * The first line break of `text` — LF, VT, FF, CR, NEL (U+0085), U+2028 or
 * U+2029 — or `undefined` when it is one line. The offset counts code
 * points from 0.
 *
 * @example
 * findLineBreak("wipe x\nSee:"); // { codePoint: 0x0a, offset: 6, kind: "a line feed" }
 */
export function findLineBreak(text: string): LineBreak | undefined {
  const at = text.search(LINE_BREAK);
  if (at < 0) return undefined;
  const codePoint = text.charCodeAt(at);
  return { codePoint, offset: codePointLength(text.slice(0, at)), kind: KINDS[codePoint]! };
}
