import { describe, expect, it } from "vitest";
import { editDistance, lineColumn, nearestWord } from "../src/index.js";

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["abc", "abc", 0],
    ["kitten", "sitting", 3],
    ["count", "cuont", 1],
    ["", "abc", 3],
    ["sumary", "summary", 1],
  ])("%s → %s is %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

describe("nearestWord", () => {
  it("names the known word a typo meant, and nothing for a word that is merely short or far", () => {
    expect(nearestWord("sumary", ["summary", "description"])).toBe("summary");
    expect(nearestWord("Inputs", ["inputs", "id"])).toBe("inputs");
    expect(nearestWord("xyz", ["id", "inputs"])).toBeUndefined();
    expect(nearestWord("ab", ["id"])).toBeUndefined();
  });
});

describe("lineColumn", () => {
  it("counts lines from 1 and columns in characters, not bytes", () => {
    expect(lineColumn('{\n  "a": }', 9)).toBe("2:8");
    expect(lineColumn("ä\nüx", Buffer.byteLength("ä\nü"))).toBe("2:2");
    expect(lineColumn(Buffer.from("abc"), 0)).toBe("1:1");
  });
});
