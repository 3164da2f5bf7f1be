import { describe, expect, it } from "vitest";
import { JsonChecker, nearestWord, typoLimit } from "../src/index.js";

// The one "did you mean" rule: what it suggests and what it leaves alone,
// for descriptor fields, config members, CLI flags and command paths alike.
describe("nearestWord and typoLimit", () => {
  it.each([
    ["sumary", ["summary", "description"], "summary"],
    ["Inputs", ["inputs", "id"], "inputs"],
    ["lable", ["label", "limit"], "label"],
    ["fils", ["files", "install"], "files"],
    ["instal", ["files", "install"], "install"],
    ["endpiont", ["endpoints", "presets"], "endpoints"],
    ["presest", ["presets", "publishers"], "presets"],
    ["cuont", ["count", "list"], "count"],
    ["ids", ["id", "idx"], "id"],
    ["colour", ["summary", "commands"], undefined],
    ["xyz", ["id", "inputs"], undefined],
    ["ab", ["id"], undefined],
    ["a", ["b"], undefined],
    ["", ["a"], undefined],
    ["zzzzzzzz", ["files", "install"], undefined],
    ["summary", [], undefined],
  ])("%j among %j suggests %j", (typed, known, expected) => {
    expect(nearestWord(typed, known)).toBe(expected);
  });

  it.each([
    ["", 0],
    ["a", 0],
    ["ab", 1],
    ["abc", 1],
    ["abcd", 2],
    ["a-much-longer-flag-name", 2],
  ])("allows %j at most %i edits", (typed, limit) => {
    expect(typoLimit(typed)).toBe(limit);
  });
});

describe("JsonChecker", () => {
  it.each([
    [{ sumary: "x" }, 'unknown member "sumary"; did you mean summary? expected one of summary, id'],
    [{ colour: "x" }, 'unknown member "colour"; expected one of summary, id'],
    [{ 'a"b': 1 }, 'unknown member "a\\"b"; expected one of summary, id'],
    [{ ["k".repeat(60)]: 1 }, `unknown member "${"k".repeat(44)}…; expected one of summary, id`],
  ])("reports the unknown key of %j as %j", (value, message) => {
    const c = new JsonChecker<"unknown">();
    c.unknownFields("/a", { ...value, id: 1 }, ["summary", "id"], {
      code: "unknown",
      noun: "member",
    });
    expect(c.issues).toEqual([{ path: `/a/${Object.keys(value)[0]}`, code: "unknown", message }]);
  });

  it.each([
    ["nothing found", [], 1, { ok: true, value: 1 }],
    ["nothing read", [], undefined, { ok: false, issues: [] }],
    [
      "an issue found",
      [["/x", "bad"]],
      1,
      { ok: false, issues: [{ path: "/x", code: "bad", message: "m" }] },
    ],
  ] as const)("gives a result when %s", (_, found, value, expected) => {
    const c = new JsonChecker<"bad">();
    for (const [path, code] of found) c.add(path, code, "m");
    expect(c.result(value)).toEqual(expected);
  });
});
