import { describe, expect, it } from "vitest";
import { editDistance, lineColumn, nearestWord, pointerOffset } from "../src/index.js";

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

describe("pointerOffset", () => {
  const text = '{\n  "a": [1, {"b": "x\\"]"}, 3],\n  "c~d/e": {"a": {"a": true}},\n  "é": null\n}';
  const at = (pointer: string) => {
    const offset = pointerOffset(text, pointer);
    return offset === undefined ? undefined : lineColumn(text, offset);
  };

  it("finds members by key and elements by index, past strings holding brackets and quotes", () => {
    expect(at("")).toBe("1:1");
    expect(at("/a")).toBe("2:3");
    expect(at("/a/0")).toBe("2:9");
    expect(at("/a/2")).toBe("2:27");
    expect(at("/a/1/b")).toBe("2:13");
    expect(at("/c~0d~1e/a/a")).toBe("3:19");
    expect(at("/é")).toBe("4:3");
    // Agrees with a real parse: the member found holds what the pointer names.
    const offset = pointerOffset(text, "/a/2")!;
    expect(
      Buffer.from(text)
        .subarray(offset, offset + 1)
        .toString(),
    ).toBe("3");
  });

  it("says nothing for what is not there or not JSON enough to tell", () => {
    for (const p of ["/x", "/a/3", "/a/-1", "/a/01", "/a/0/b", "a", "/c~0d~1e/b"])
      expect(pointerOffset(text, p), p).toBeUndefined();
    expect(pointerOffset('{"a" 1}', "/a")).toBeUndefined();
    expect(pointerOffset('{"a": "unterminated', "/b")).toBeUndefined();
  });
});
