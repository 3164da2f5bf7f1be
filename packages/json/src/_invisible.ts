// Characters a person does not see and a model reads: Unicode's
// default-ignorable code points (tag characters, zero-width and
// bidirectional controls, variation selectors, other format characters),
// which a display shows as nothing, and the interlinear annotation controls,
// which hide the text they enclose. Text bound for an agent refuses them;
// text bound for a terminal shows them escaped.

import { codePointLength } from "./_issues.js";

/** What a reader is told a hidden character is. */
type Kind =
  | "a tag character"
  | "a zero-width character"
  | "a bidirectional control"
  | "a variation selector"
  | "an invisible format character";

/**
 * Every hidden character, by kind: Default_Ignorable_Code_Point (stable
 * across Unicode versions: its unassigned code points are reserved in it)
 * and U+FFF9–U+FFFB. Written out, not `\p{…}`, so that every Node line
 * refuses the same set.
 */
const RANGES: readonly (readonly [number, number, Kind])[] = [
  [0xe0000, 0xe007f, "a tag character"],
  [0x200b, 0x200d, "a zero-width character"],
  [0x2060, 0x2060, "a zero-width character"],
  [0xfeff, 0xfeff, "a zero-width character"],
  [0x061c, 0x061c, "a bidirectional control"],
  [0x200e, 0x200f, "a bidirectional control"],
  [0x202a, 0x202e, "a bidirectional control"],
  [0x2066, 0x2069, "a bidirectional control"],
  [0x180b, 0x180d, "a variation selector"],
  [0x180f, 0x180f, "a variation selector"],
  [0xfe00, 0xfe0f, "a variation selector"],
  [0xe0100, 0xe01ef, "a variation selector"],
  [0x00ad, 0x00ad, "an invisible format character"],
  [0x034f, 0x034f, "an invisible format character"],
  [0x115f, 0x1160, "an invisible format character"],
  [0x17b4, 0x17b5, "an invisible format character"],
  [0x180e, 0x180e, "an invisible format character"],
  [0x2061, 0x2065, "an invisible format character"],
  [0x206a, 0x206f, "an invisible format character"],
  [0x3164, 0x3164, "an invisible format character"],
  [0xffa0, 0xffa0, "an invisible format character"],
  [0xfff0, 0xfffb, "an invisible format character"],
  [0x1bca0, 0x1bca3, "an invisible format character"],
  [0x1d173, 0x1d17a, "an invisible format character"],
  [0xe0080, 0xe00ff, "an invisible format character"],
  [0xe01f0, 0xe0fff, "an invisible format character"],
];

const CLASS = RANGES.map(
  ([lo, hi]) => `\\u{${lo.toString(16)}}${hi === lo ? "" : `-\\u{${hi.toString(16)}}`}`,
).join("");
const HIDDEN_ALL = new RegExp(`[${CLASS}]`, "gu");
const HIDDEN_ONE = new RegExp(`[${CLASS}]`, "u");

/** A hidden character found in a text: its code point, its offset in code points, what it is. */
export interface InvisibleCharacter {
  readonly codePoint: number;
  readonly offset: number;
  readonly kind: Kind;
}

function kindOf(codePoint: number): Kind {
  for (const [lo, hi, kind] of RANGES) if (codePoint >= lo && codePoint <= hi) return kind;
  return "an invisible format character";
}

/**
 * Whether the hidden character at UTF-16 `index` of `text` is text or emoji
 * style (U+FE0E, U+FE0F) straight after a character that is not hidden
 * (`⚠️` is U+26A0 U+FE0F): one such selector shows, a run of them hides.
 */
function styleSelector(text: string, index: number, codePoint: number): boolean {
  if ((codePoint !== 0xfe0e && codePoint !== 0xfe0f) || index === 0) return false;
  const low = text.charCodeAt(index - 1);
  const before = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? text.codePointAt(index - 2)! : low;
  return !HIDDEN_ONE.test(String.fromCodePoint(before));
}

/**
 * The first character of `text` that a person would not see: a tag
 * character (U+E0000–U+E007F), a zero-width character (U+200B–U+200D,
 * U+2060, U+FEFF), a bidirectional control (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069), a variation selector (but one text or
 * emoji style selector straight after a visible character) or another
 * invisible format character (U+00AD, U+180E, U+2061–U+2064, U+3164, …);
 * `undefined` when there is none. The offset counts code points from 0.
 *
 * @example
 * findInvisible("ok\u{E0049}"); // { codePoint: 0xe0049, offset: 2, kind: "a tag character" }
 */
export function findInvisible(text: string): InvisibleCharacter | undefined {
  if (!HIDDEN_ONE.test(text)) return undefined;
  for (const m of text.matchAll(HIDDEN_ALL)) {
    const codePoint = m[0].codePointAt(0)!;
    if (styleSelector(text, m.index, codePoint)) continue;
    return { codePoint, offset: codePointLength(text.slice(0, m.index)), kind: kindOf(codePoint) };
  }
  return undefined;
}

/**
 * `text` with each character {@link findInvisible} would find replaced by
 * what `replacement` gives for its code point.
 *
 * @example
 * replaceInvisible("a\u202Eb", (cp) => `\\u${cp.toString(16)}`); // "a\\u202eb"
 */
export function replaceInvisible(text: string, replacement: (codePoint: number) => string): string {
  return text.replace(HIDDEN_ALL, (c: string, index: number) => {
    const codePoint = c.codePointAt(0)!;
    return styleSelector(text, index, codePoint) ? c : replacement(codePoint);
  });
}
