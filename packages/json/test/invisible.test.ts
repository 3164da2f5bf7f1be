import { describe, expect, it } from "vitest";
import { findInvisible, replaceInvisible } from "../src/index.js";

// Characters a person does not see and a model reads: Unicode's
// default-ignorable code points (tags, zero-width and bidirectional
// controls, variation selectors, other format characters) and the
// interlinear annotation controls, which hide the text they enclose.

const at = (text: string) => findInvisible(text);

describe("findInvisible", () => {
  it.each<[string, string, number, number, string]>([
    ["a tag character (an ASCII smuggler's 'I')", "ok\u{E0049}", 0xe0049, 2, "a tag character"],
    ["the language tag", "\u{E0001}en", 0xe0001, 0, "a tag character"],
    ["the cancel tag", "x\u{E007F}", 0xe007f, 1, "a tag character"],
    ["an unassigned tag code point", "x\u{E0000}", 0xe0000, 1, "a tag character"],
    ["a zero-width space", "a\u200Bb", 0x200b, 1, "a zero-width character"],
    ["a zero-width non-joiner", "a\u200Cb", 0x200c, 1, "a zero-width character"],
    ["a zero-width joiner", "a\u200Db", 0x200d, 1, "a zero-width character"],
    ["a word joiner", "a\u2060b", 0x2060, 1, "a zero-width character"],
    ["a byte order mark", "\uFEFFab", 0xfeff, 0, "a zero-width character"],
    ["a left-to-right mark", "a\u200Eb", 0x200e, 1, "a bidirectional control"],
    ["a right-to-left mark", "a\u200Fb", 0x200f, 1, "a bidirectional control"],
    ["an Arabic letter mark", "a\u061Cb", 0x061c, 1, "a bidirectional control"],
    ["a right-to-left override", "abc\u202Edef", 0x202e, 3, "a bidirectional control"],
    ["a left-to-right embedding", "\u202Aab", 0x202a, 0, "a bidirectional control"],
    ["a left-to-right isolate", "a\u2066b", 0x2066, 1, "a bidirectional control"],
    ["a pop directional isolate", "a\u2069b", 0x2069, 1, "a bidirectional control"],
    ["a soft hyphen", "in\u00ADvisible", 0x00ad, 2, "an invisible format character"],
    ["an invisible plus", "a\u2064b", 0x2064, 1, "an invisible format character"],
    ["a deprecated format character", "a\u206Fb", 0x206f, 1, "an invisible format character"],
    ["a Mongolian vowel separator", "a\u180Eb", 0x180e, 1, "an invisible format character"],
    ["a Hangul filler", "a\u3164b", 0x3164, 1, "an invisible format character"],
    ["a combining grapheme joiner", "a\u034Fb", 0x034f, 1, "an invisible format character"],
    [
      "an interlinear annotation anchor",
      "a\uFFF9b\uFFFAc\uFFFB",
      0xfff9,
      1,
      "an invisible format character",
    ],
    ["a variation selector after nothing visible", "\uFE0F", 0xfe0f, 0, "a variation selector"],
    ["a second variation selector", "\u2764\uFE0F\uFE0F", 0xfe0f, 2, "a variation selector"],
    [
      "a variation selector other than text or emoji style",
      "a\uFE00",
      0xfe00,
      1,
      "a variation selector",
    ],
    ["a supplementary variation selector", "a\u{E0100}", 0xe0100, 1, "a variation selector"],
    ["a Mongolian free variation selector", "a\u180Bb", 0x180b, 1, "a variation selector"],
    // The offset counts code points: an emoji before it is one.
    ["after an astral character", "\u{1F600}\u200B", 0x200b, 1, "a zero-width character"],
  ])("finds %s", (_, text, codePoint, offset, kind) => {
    expect(at(text)).toEqual({ codePoint, offset, kind });
  });

  it.each([
    ["plain text", "Count lines in files"],
    ["newline and tab (not invisible: shown as space)", "one\ttwo\nthree"],
    ["other scripts", "Zählt Zeilen — 行数を数える — عدد الأسطر — गिनती"],
    ["a no-break space", "10\u00A0MB"],
    ["an emoji without joiners", "Ship it \u{1F680}"],
    ["text or emoji style once after a visible character", "Careful \u26A0\uFE0F, or \u2764\uFE0E"],
    ["a visible format character (Arabic number sign)", "\u0600123"],
    ["nothing", ""],
  ])("accepts %s", (_, text) => {
    expect(at(text)).toBeUndefined();
  });

  it("agrees with Unicode's Default_Ignorable_Code_Point, plus the interlinear annotation controls", () => {
    const ignorable = /\p{Default_Ignorable_Code_Point}/u;
    const missed: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const expected = ignorable.test(String.fromCodePoint(cp)) || (cp >= 0xfff9 && cp <= 0xfffb);
      // Alone, so that no text or emoji style selector follows a visible character.
      const found = findInvisible(String.fromCodePoint(cp)) !== undefined;
      if (found !== expected) missed.push(cp.toString(16));
    }
    expect(missed).toEqual([]);
  });
});

describe("replaceInvisible", () => {
  it("replaces each invisible character, as one code point, and keeps everything else", () => {
    const shown = replaceInvisible(
      "a\u{E0049}\u{E0067}b\u202Ec \u26A0\uFE0F",
      (cp) => `<${cp.toString(16)}>`,
    );
    expect(shown).toBe("a<e0049><e0067>b<202e>c \u26A0\uFE0F");
  });

  it("returns the same text when there is nothing to replace", () => {
    expect(replaceInvisible("plain", () => "!")).toBe("plain");
  });
});
