import { describe, expect, it } from "vitest";
import {
  type CommandResultIssueCode,
  checkResultSchema,
  type ResultDeclaration,
  type ResultSchema,
} from "../src/index.js";
import { validateUntimed } from "./_untimed.js";

function checked(schema: unknown): ResultSchema {
  const r = checkResultSchema(schema);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

const text: ResultDeclaration = { kind: "text" };
const item = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 3 },
    count: { type: "integer", minimum: 0, maximum: 10 },
    ratio: { type: "number", minimum: -1, maximum: 1 },
    on: { type: "boolean" },
    none: { type: "null" },
    color: { type: "string", enum: ["red", "blue"] },
  },
  required: ["name"],
  additionalProperties: false,
};
const structured: ResultDeclaration = {
  kind: "structured",
  schema: checked({
    type: "object",
    properties: { items: { type: "array", items: item, minItems: 1, maxItems: 3 } },
    required: ["items"],
    additionalProperties: false,
  }),
};
const data = (...items: unknown[]) => ({ kind: "structured", data: { items } });

function issuesOf(
  declaration: ResultDeclaration,
  received: unknown,
): [string, CommandResultIssueCode][] {
  const r = validateUntimed(declaration, received);
  return r.ok ? [] : r.issues.map((i) => [i.path, i.code]);
}

describe("validateCommandResult: the wrapper", () => {
  it.each<[string, ResultDeclaration, unknown, [string, CommandResultIssueCode][]]>([
    ["text", text, { kind: "text", text: "done" }, []],
    ["empty text", text, { kind: "text", text: "" }, []],
    ["structured", structured, data({ name: "a" }), []],
    ["not an object", text, "done", [["", "invalid_result"]]],
    ["an array", text, [], [["", "invalid_result"]]],
    ["null", text, null, [["", "invalid_result"]]],
    ["no kind", text, { text: "x" }, [["", "invalid_result"]]],
    ["an unknown kind", text, { kind: "json", text: "x" }, [["/kind", "invalid_result"]]],
    [
      "structured where text is declared",
      text,
      { kind: "structured", data: 1 },
      [
        ["/kind", "kind_mismatch"],
        ["/data", "invalid_result"],
        ["", "invalid_result"],
      ],
    ],
    [
      "text where structured is declared",
      structured,
      { kind: "text", text: "x" },
      [
        ["/kind", "kind_mismatch"],
        ["/text", "invalid_result"],
        ["", "invalid_result"],
      ],
    ],
    ["an extra member", text, { kind: "text", text: "x", data: 1 }, [["/data", "invalid_result"]]],
    ["missing text", text, { kind: "text" }, [["", "invalid_result"]]],
    ["non-string text", text, { kind: "text", text: 1 }, [["/text", "invalid_result"]]],
    ["missing data", structured, { kind: "structured" }, [["", "invalid_result"]]],
  ])("%s", (_name, declaration, received, expected) => {
    expect(issuesOf(declaration, received)).toEqual(expected);
  });

  it("returns the received value on success", () => {
    const received = data({ name: "a", count: 3 });
    expect(validateUntimed(structured, received)).toEqual({ ok: true, value: received });
  });

  it.each<[string, unknown]>([
    ["no kind", {}],
    ["an unknown kind", { kind: "json" }],
    ["not an object", null],
    ["an invalid schema", { kind: "structured", schema: { type: "string", pattern: "x" } }],
  ])("rejects a declaration with %s", (_name, declaration) => {
    expect(issuesOf(declaration as ResultDeclaration, { kind: "text", text: "x" })).toEqual([
      ["", "invalid_declaration"],
    ]);
  });

  it("checks a schema that did not come from checkResultSchema before using it", () => {
    const schema = { type: "string", maxLength: 1 } as const;
    expect(issuesOf({ kind: "structured", schema }, { kind: "structured", data: "ab" })).toEqual([
      ["/data", "too_long"],
    ]);
  });
});

const holey: unknown[] = [];
holey[1] = { name: "a" };

describe("validateCommandResult: data against the schema", () => {
  it.each<[string, unknown, [string, CommandResultIssueCode][]]>([
    [
      "all members valid",
      data({ name: "abc", count: 10, ratio: -1, on: false, none: null, color: "red" }),
      [],
    ],
    ["a string of 3 astral code points", data({ name: "😀😀😀" }), []],
    ["an integer written as 2.0", data({ name: "a", count: 2.0 }), []],
    ["an integer where a number is expected", data({ name: "a", ratio: 0 }), []],
    ["data of the wrong type", { kind: "structured", data: [] }, [["/data", "type_mismatch"]]],
    [
      "items not an array",
      { kind: "structured", data: { items: {} } },
      [["/data/items", "type_mismatch"]],
    ],
    ["too few items", data(), [["/data/items", "too_short"]]],
    [
      "too many items",
      data({ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }),
      [["/data/items", "too_long"]],
    ],
    ["a missing required property", data({ count: 1 }), [["/data/items/0", "missing_property"]]],
    [
      "an undeclared member",
      data({ name: "a", nam: "b" }),
      [["/data/items/0/nam", "additional_property"]],
    ],
    [
      "an escaped member name",
      data({ name: "a", "a/~b": 1 }),
      [["/data/items/0/a~1~0b", "additional_property"]],
    ],
    ["an empty string", data({ name: "" }), [["/data/items/0/name", "too_short"]]],
    ["a string of 4 code points", data({ name: "😀😀😀😀" }), [["/data/items/0/name", "too_long"]]],
    [
      "a fractional integer",
      data({ name: "a", count: 1.5 }),
      [["/data/items/0/count", "type_mismatch"]],
    ],
    [
      "an unsafe integer",
      data({ name: "a", count: 2 ** 53 }),
      [["/data/items/0/count", "type_mismatch"]],
    ],
    [
      "a string integer",
      data({ name: "a", count: "1" }),
      [["/data/items/0/count", "type_mismatch"]],
    ],
    ["below minimum", data({ name: "a", count: -1 }), [["/data/items/0/count", "below_minimum"]]],
    [
      "above maximum",
      data({ name: "a", ratio: 1.0001 }),
      [["/data/items/0/ratio", "above_maximum"]],
    ],
    ["a non-boolean", data({ name: "a", on: 0 }), [["/data/items/0/on", "type_mismatch"]]],
    ["a non-null", data({ name: "a", none: false }), [["/data/items/0/none", "type_mismatch"]]],
    [
      "a value outside the enum",
      data({ name: "a", color: "green" }),
      [["/data/items/0/color", "not_in_enum"]],
    ],
    [
      "several problems at once",
      data({ name: "a" }, { count: 11, x: 1 }, { name: 7 }),
      [
        ["/data/items/1/count", "above_maximum"],
        ["/data/items/1/x", "additional_property"],
        ["/data/items/1", "missing_property"],
        ["/data/items/2/name", "type_mismatch"],
      ],
    ],
  ])("%s", (_name, received, expected) => {
    expect(issuesOf(structured, received)).toEqual(expected);
  });

  it.each<[string, unknown, [string, CommandResultIssueCode][]]>([
    ["NaN", data({ name: "a", ratio: Number.NaN }), [["/data/items/0/ratio", "not_json"]]],
    [
      "Infinity",
      data({ name: "a", ratio: Number.POSITIVE_INFINITY }),
      [["/data/items/0/ratio", "not_json"]],
    ],
    ["undefined", data({ name: "a", on: undefined }), [["/data/items/0/on", "not_json"]]],
    ["a hole", { kind: "structured", data: { items: holey } }, [["/data/items/0", "not_json"]]],
    ["a lone surrogate", data({ name: "\udc00" }), [["/data/items/0/name", "not_json"]]],
    [
      "a lone surrogate in a key",
      data({ name: "a", "\ud800": 1 }),
      [["/data/items/0/\ud800", "not_json"]],
    ],
    ["a bigint", data({ name: "a", count: 1n }), [["/data/items/0/count", "not_json"]]],
    ["a Map", { kind: "structured", data: new Map() }, [["/data", "not_json"]]],
  ])("rejects an in-memory value that is not JSON data: %s", (_name, received, expected) => {
    expect(issuesOf(structured, received)).toEqual(expected);
  });
});

describe("validateCommandResult: from UTF-8 bytes", () => {
  const integer: ResultDeclaration = { kind: "structured", schema: checked({ type: "integer" }) };
  const number: ResultDeclaration = { kind: "structured", schema: checked({ type: "number" }) };
  const bytes = (literal: string) => Buffer.from(`{"kind":"structured","data":${literal}}`);

  it.each<[string, ResultDeclaration, string, [string, CommandResultIssueCode][]]>([
    ["1.0 as an integer", integer, "1.0", []],
    ["2e3 as an integer", integer, "2e3", []],
    ["-0 as an integer", integer, "-0", []],
    ["the largest safe integer", integer, "9007199254740991", []],
    ["the smallest safe integer", integer, "-9007199254740991", []],
    [
      "a literal that only rounds to an integer",
      integer,
      "1.0000000000000001",
      [["/data", "type_mismatch"]],
    ],
    ["2^52 + 0.5", integer, "4503599627370496.5", [["/data", "type_mismatch"]]],
    ["an underflowing literal", integer, "1e-400", [["/data", "type_mismatch"]]],
    ["9007199254740993 as an integer", integer, "9007199254740993", [["/data", "type_mismatch"]]],
    ["9007199254740993 as a number", number, "9007199254740993", [["/data", "type_mismatch"]]],
    ["1e300 as a number", number, "1e300", []],
    ["an overflowing number", number, "1e400", [["", "invalid_json"]]],
    ["a duplicate key", number, '1,"data":2', [["", "invalid_json"]]],
  ])("%s", (_name, declaration, literal, expected) => {
    expect(issuesOf(declaration, bytes(literal))).toEqual(expected);
  });

  it("rejects invalid UTF-8 and lone surrogate escapes", () => {
    expect(issuesOf(text, Buffer.from('{"kind":"text","text":"\xff"}', "latin1"))).toEqual([
      ["", "invalid_json"],
    ]);
    expect(issuesOf(text, Buffer.from('{"kind":"text","text":"\\udc00"}'))).toEqual([
      ["", "invalid_json"],
    ]);
  });

  it("returns the parsed value", () => {
    expect(validateUntimed(text, Buffer.from('{"text":"hi","kind":"text"}'))).toEqual({
      ok: true,
      value: { kind: "text", text: "hi" },
    });
  });
});
