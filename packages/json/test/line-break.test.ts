import { describe, expect, it } from "vitest";
import { findLineBreak } from "../src/index.js";

// What ends a line for some reader of the text: a terminal, a Markdown
// renderer, an editor or a model. One-line text refuses every one of them.

describe("findLineBreak", () => {
  it.each<[string, string, number, number, string]>([
    ["a line feed", "wipe x\nSee:", 0x0a, 6, "a line feed"],
    ["a carriage return", "a\rb", 0x0d, 1, "a carriage return"],
    ["a CR LF pair, at its CR", "ab\r\nc", 0x0d, 2, "a carriage return"],
    ["a line tabulation", "a\u000Bb", 0x0b, 1, "a line tabulation"],
    ["a form feed", "\u000Cb", 0x0c, 0, "a form feed"],
    ["a next line", "a\u0085b", 0x85, 1, "a next line"],
    ["a line separator", "a\u2028b", 0x2028, 1, "a line separator"],
    ["a paragraph separator", "a\u2029b", 0x2029, 1, "a paragraph separator"],
    [
      "one past astral characters, counted in code points",
      "\u{1F680}\u{1F680}\n",
      0x0a,
      2,
      "a line feed",
    ],
  ])("finds %s", (_, text, codePoint, offset, kind) => {
    expect(findLineBreak(text)).toEqual({ codePoint, offset, kind });
  });

  it.each([
    ["plain text", "Count lines in files"],
    ["a tab", "a\tb"],
    ["a no-break space", "10\u00A0MB"],
    ["other scripts", "Zählt Zeilen — 行数 — عدد الأسطر"],
    ["the empty text", ""],
  ])("finds none in %s", (_, text) => {
    expect(findLineBreak(text)).toBeUndefined();
  });

  it("covers every code point of Unicode's line and paragraph separator categories", () => {
    const separators: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (/[\p{Zl}\p{Zp}]/u.test(String.fromCodePoint(cp))) separators.push(cp);
    }
    expect(separators.length).toBeGreaterThan(0);
    for (const cp of separators)
      expect(findLineBreak(`a${String.fromCodePoint(cp)}`)?.codePoint).toBe(cp);
  });
});
