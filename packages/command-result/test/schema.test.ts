import { canonicalJson } from "@rukh/json";
import { describe, expect, it } from "vitest";
import { type CommandResultIssueCode, checkResultSchema } from "../src/index.js";

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  additionalProperties: false,
  ...extra,
});

function issuesOf(schema: unknown): [string, CommandResultIssueCode][] {
  const r = checkResultSchema(schema);
  return r.ok ? [] : r.issues.map((i) => [i.path, i.code]);
}

describe("checkResultSchema accepts the subset", () => {
  it.each<[string, unknown]>([
    ["string", { type: "string" }],
    [
      "string with bounds and enum",
      { type: "string", minLength: 1, maxLength: 3, enum: ["a", "😀😀😀"] },
    ],
    ["equal bounds", { type: "string", minLength: 2, maxLength: 2 }],
    [
      "integer with range and enum",
      { type: "integer", minimum: -1, maximum: 9, enum: [0, 9, 2.0] },
    ],
    ["integer with a fractional bound", { type: "integer", minimum: 0.5 }],
    ["number", { type: "number", minimum: -1.5, maximum: 1e300, enum: [0.25] }],
    ["boolean", { type: "boolean", enum: [true] }],
    ["null", { type: "null", enum: [null] }],
    ["annotations anywhere", { type: "null", title: "Nothing", description: "always null" }],
    ["empty object", obj({})],
    [
      "object with required",
      obj({ a: { type: "string" }, b: { type: "integer" } }, { required: ["b", "a"] }),
    ],
    [
      "__proto__ as a property name",
      JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"null"}},"required":["__proto__"],"additionalProperties":false}',
      ),
    ],
    ["array", { type: "array", items: { type: "string" }, maxItems: 10, minItems: 0 }],
    [
      "nested",
      obj({ list: { type: "array", maxItems: 2, items: obj({ n: { type: "number" } }) } }),
    ],
  ])("%s", (_name, schema) => {
    const r = checkResultSchema(schema);
    expect(r.ok ? "accepted" : r.issues).toBe("accepted");
    if (r.ok) expect(canonicalJson(r.value as never)).toBe(canonicalJson(schema as never));
  });

  it("returns a deeply frozen copy, not the caller's object", () => {
    const schema = obj(
      { list: { type: "array", maxItems: 2, items: { type: "string", enum: ["x"] } } },
      { required: ["list"] },
    );
    const r = checkResultSchema(schema);
    if (!r.ok) throw new Error("rejected");
    expect(r.value).not.toBe(schema);
    expect(r.value).toEqual(schema);
    const v = r.value as unknown as {
      properties: { list: { items: { enum: string[] } } };
      required: string[];
    };
    expect(Object.isFrozen(v)).toBe(true);
    expect(Object.isFrozen(v.properties.list.items.enum)).toBe(true);
    expect(Object.isFrozen(v.required)).toBe(true);
    expect(Object.isFrozen(schema)).toBe(false);
  });

  it("reads a schema from UTF-8 bytes", () => {
    const r = checkResultSchema(Buffer.from('{ "type": "string", "maxLength": 4 }'));
    expect(r).toEqual({ ok: true, value: { type: "string", maxLength: 4 } });
  });

  it.each<[string, string, CommandResultIssueCode]>([
    ["duplicate key", '{"type":"string","type":"null"}', "invalid_json"],
    ["invalid UTF-8", '{"type":"string","title":"\xff"}', "invalid_json"],
    ["lone surrogate escape", '{"type":"string","title":"\\ud800"}', "invalid_json"],
    ["unsafe integer", '{"type":"integer","maximum":9007199254740993}', "invalid_json"],
    ["overflowing number", '{"type":"number","maximum":1e400}', "invalid_json"],
    ["trailing content", '{"type":"null"} x', "invalid_json"],
  ])("rejects bytes with %s", (_name, text, code) => {
    const bytes = Buffer.from(text, "latin1");
    expect(issuesOf(bytes)).toEqual([["", code]]);
  });
});

describe("checkResultSchema rejects everything outside the subset", () => {
  it.each<[string, unknown, [string, CommandResultIssueCode][]]>([
    // Shape of a schema and its type.
    ["a boolean schema", true, [["", "not_a_schema"]]],
    ["an array as schema", [], [["", "not_a_schema"]]],
    ["a missing type", { minLength: 1 }, [["", "missing_keyword"]]],
    ["a type list", { type: ["string", "null"] }, [["/type", "invalid_keyword_value"]]],
    [
      "integer bounds past ±(2^53−1), which no exact integer result can meet",
      { type: "integer", minimum: -(2 ** 53), maximum: 2 ** 60 },
      [
        ["/minimum", "invalid_keyword_value"],
        ["/maximum", "invalid_keyword_value"],
      ],
    ],

    ["an unknown type", { type: "any" }, [["/type", "invalid_keyword_value"]]],
    ["a non-string title", { type: "null", title: 1 }, [["/title", "invalid_keyword_value"]]],
    // A title is one line; a description may break lines.
    ["a title with a line feed", { type: "null", title: "a\nSee:" }, [["/title", "line_break"]]],
    [
      "a nested title with a paragraph separator",
      obj({ n: { type: "null", title: "a\u2029b", description: "ok\nok" } }),
      [["/properties/n/title", "line_break"]],
    ],
    [
      "a non-string description",
      { type: "null", description: null },
      [["/description", "invalid_keyword_value"]],
    ],
    // References, identifiers, dialects.
    ["$ref", { type: "string", $ref: "#/x" }, [["/$ref", "unsupported_keyword"]]],
    ["$id", { type: "string", $id: "https://x" }, [["/$id", "unsupported_keyword"]]],
    [
      "$schema",
      { type: "string", $schema: "https://json-schema.org/draft/2020-12/schema" },
      [["/$schema", "unsupported_keyword"]],
    ],
    ["$defs", { type: "string", $defs: {} }, [["/$defs", "unsupported_keyword"]]],
    ["definitions", { type: "string", definitions: {} }, [["/definitions", "unsupported_keyword"]]],
    ["$anchor", { type: "string", $anchor: "a" }, [["/$anchor", "unsupported_keyword"]]],
    [
      "$dynamicRef",
      { type: "string", $dynamicRef: "#a" },
      [["/$dynamicRef", "unsupported_keyword"]],
    ],
    [
      "$dynamicAnchor",
      { type: "string", $dynamicAnchor: "a" },
      [["/$dynamicAnchor", "unsupported_keyword"]],
    ],
    [
      "$recursiveRef",
      { type: "string", $recursiveRef: "#" },
      [["/$recursiveRef", "unsupported_keyword"]],
    ],
    ["$vocabulary", { type: "string", $vocabulary: {} }, [["/$vocabulary", "unsupported_keyword"]]],
    ["$comment", { type: "string", $comment: "hi" }, [["/$comment", "unsupported_keyword"]]],
    ["any other $ keyword", { type: "string", $future: 1 }, [["/$future", "unsupported_keyword"]]],
    // Regular expressions.
    ["pattern", { type: "string", pattern: "^a" }, [["/pattern", "unsupported_keyword"]]],
    [
      "patternProperties",
      obj({}, { patternProperties: { "^a": { type: "null" } } }),
      [["/patternProperties", "unsupported_keyword"]],
    ],
    [
      "propertyNames",
      obj({}, { propertyNames: { type: "string" } }),
      [["/propertyNames", "unsupported_keyword"]],
    ],
    // Composition and conditionals.
    ...["allOf", "anyOf", "oneOf"].map(
      (k): [string, unknown, [string, CommandResultIssueCode][]] => [
        k,
        { type: "string", [k]: [{ type: "string" }] },
        [[`/${k}`, "unsupported_keyword"]],
      ],
    ),
    ...["not", "if", "then", "else"].map(
      (k): [string, unknown, [string, CommandResultIssueCode][]] => [
        k,
        { type: "string", [k]: { type: "string" } },
        [[`/${k}`, "unsupported_keyword"]],
      ],
    ),
    [
      "dependentSchemas",
      obj({}, { dependentSchemas: {} }),
      [["/dependentSchemas", "unsupported_keyword"]],
    ],
    [
      "dependentRequired",
      obj({}, { dependentRequired: {} }),
      [["/dependentRequired", "unsupported_keyword"]],
    ],
    // Other keywords of JSON Schema.
    ["default", { type: "string", default: "x" }, [["/default", "unsupported_keyword"]]],
    ["format", { type: "string", format: "email" }, [["/format", "unsupported_keyword"]]],
    ["const", { type: "string", const: "x" }, [["/const", "unsupported_keyword"]]],
    ["examples", { type: "string", examples: ["x"] }, [["/examples", "unsupported_keyword"]]],
    ["multipleOf", { type: "integer", multipleOf: 2 }, [["/multipleOf", "unsupported_keyword"]]],
    [
      "exclusiveMinimum",
      { type: "number", exclusiveMinimum: 0 },
      [["/exclusiveMinimum", "unsupported_keyword"]],
    ],
    [
      "exclusiveMaximum",
      { type: "number", exclusiveMaximum: 0 },
      [["/exclusiveMaximum", "unsupported_keyword"]],
    ],
    [
      "contentEncoding",
      { type: "string", contentEncoding: "base64" },
      [["/contentEncoding", "unsupported_keyword"]],
    ],
    [
      "uniqueItems",
      { type: "array", items: { type: "null" }, maxItems: 1, uniqueItems: true },
      [["/uniqueItems", "unsupported_keyword"]],
    ],
    [
      "contains",
      { type: "array", items: { type: "null" }, maxItems: 1, contains: { type: "null" } },
      [["/contains", "unsupported_keyword"]],
    ],
    [
      "prefixItems",
      { type: "array", items: { type: "null" }, maxItems: 1, prefixItems: [] },
      [["/prefixItems", "unsupported_keyword"]],
    ],
    [
      "unevaluatedProperties",
      obj({}, { unevaluatedProperties: false }),
      [["/unevaluatedProperties", "unsupported_keyword"]],
    ],
    ["minProperties", obj({}, { minProperties: 1 }), [["/minProperties", "unsupported_keyword"]]],
    ["readOnly", { type: "string", readOnly: true }, [["/readOnly", "unsupported_keyword"]]],
    // Unknown keywords, typos included.
    ["a typo maxLenght", { type: "string", maxLenght: 3 }, [["/maxLenght", "unknown_keyword"]]],
    ["a typo requried", obj({}, { requried: [] }), [["/requried", "unknown_keyword"]]],
    [
      "an invented keyword",
      { type: "string", "x-widget": "textarea" },
      [["/x-widget", "unknown_keyword"]],
    ],
    // Keywords that do not apply to the selected type.
    [
      "minLength on integer",
      { type: "integer", minLength: 1 },
      [["/minLength", "misplaced_keyword"]],
    ],
    ["maximum on string", { type: "string", maximum: 1 }, [["/maximum", "misplaced_keyword"]]],
    ["items on object", obj({}, { items: { type: "null" } }), [["/items", "misplaced_keyword"]]],
    [
      "properties on array",
      { type: "array", items: { type: "null" }, maxItems: 1, properties: {} },
      [["/properties", "misplaced_keyword"]],
    ],
    ["required on string", { type: "string", required: [] }, [["/required", "misplaced_keyword"]]],
    [
      "additionalProperties on string",
      { type: "string", additionalProperties: false },
      [["/additionalProperties", "misplaced_keyword"]],
    ],
    ["minItems on string", { type: "string", minItems: 1 }, [["/minItems", "misplaced_keyword"]]],
    ["maxItems on object", obj({}, { maxItems: 1 }), [["/maxItems", "misplaced_keyword"]]],
    ["enum on object", obj({}, { enum: [{}] }), [["/enum", "misplaced_keyword"]]],
    [
      "enum on array",
      { type: "array", items: { type: "null" }, maxItems: 1, enum: [[]] },
      [["/enum", "misplaced_keyword"]],
    ],
    // Objects.
    [
      "object without properties",
      { type: "object", additionalProperties: false },
      [["", "missing_keyword"]],
    ],
    [
      "object without additionalProperties",
      { type: "object", properties: {} },
      [["", "missing_keyword"]],
    ],
    [
      "additionalProperties true",
      obj({}, { additionalProperties: true }),
      [["/additionalProperties", "invalid_keyword_value"]],
    ],
    [
      "additionalProperties as a schema",
      obj({}, { additionalProperties: { type: "string" } }),
      [["/additionalProperties", "invalid_keyword_value"]],
    ],
    [
      "properties not an object",
      obj({}, { properties: [] }),
      [["/properties", "invalid_keyword_value"]],
    ],
    [
      "an invalid property schema",
      obj({ "a/b": { type: "string", format: "uri" } }),
      [["/properties/a~1b/format", "unsupported_keyword"]],
    ],
    [
      "required not an array",
      obj({ a: { type: "null" } }, { required: "a" }),
      [["/required", "invalid_keyword_value"]],
    ],
    [
      "required with a non-string",
      obj({ a: { type: "null" } }, { required: [1] }),
      [["/required/0", "invalid_required"]],
    ],
    [
      "required with a duplicate",
      obj({ a: { type: "null" } }, { required: ["a", "a"] }),
      [["/required/1", "invalid_required"]],
    ],
    [
      "required with an undeclared name",
      obj({ a: { type: "null" } }, { required: ["b"] }),
      [["/required/0", "invalid_required"]],
    ],
    // Arrays.
    ["array without items", { type: "array", maxItems: 1 }, [["", "missing_keyword"]]],
    [
      "array without maxItems",
      { type: "array", items: { type: "null" } },
      [["", "missing_keyword"]],
    ],
    [
      "tuple items",
      { type: "array", items: [{ type: "null" }], maxItems: 1 },
      [["/items", "invalid_keyword_value"]],
    ],
    ["boolean items", { type: "array", items: true, maxItems: 1 }, [["/items", "not_a_schema"]]],
    [
      "an invalid items schema",
      { type: "array", items: { type: "string", minLength: -1 }, maxItems: 1 },
      [["/items/minLength", "invalid_keyword_value"]],
    ],
    // Counters and bounds.
    [
      "negative minLength",
      { type: "string", minLength: -1 },
      [["/minLength", "invalid_keyword_value"]],
    ],
    [
      "fractional maxLength",
      { type: "string", maxLength: 1.5 },
      [["/maxLength", "invalid_keyword_value"]],
    ],
    [
      "string maxLength",
      { type: "string", maxLength: "3" },
      [["/maxLength", "invalid_keyword_value"]],
    ],
    [
      "negative minItems",
      { type: "array", items: { type: "null" }, maxItems: 1, minItems: -1 },
      [["/minItems", "invalid_keyword_value"]],
    ],
    [
      "unsafe maxItems",
      { type: "array", items: { type: "null" }, maxItems: 2 ** 53 },
      [["/maxItems", "invalid_keyword_value"]],
    ],
    [
      "infinite maxItems",
      { type: "array", items: { type: "null" }, maxItems: null },
      [["/maxItems", "invalid_keyword_value"]],
    ],
    [
      "minLength above maxLength",
      { type: "string", minLength: 3, maxLength: 2 },
      [["/minLength", "inverted_bounds"]],
    ],
    [
      "minItems above maxItems",
      { type: "array", items: { type: "null" }, minItems: 3, maxItems: 2 },
      [["/minItems", "inverted_bounds"]],
    ],
    [
      "minimum above maximum",
      { type: "number", minimum: 1, maximum: 0.5 },
      [["/minimum", "inverted_bounds"]],
    ],
    [
      "a non-number minimum",
      { type: "number", minimum: "0" },
      [["/minimum", "invalid_keyword_value"]],
    ],
    // Enums.
    ["an empty enum", { type: "string", enum: [] }, [["/enum", "invalid_enum"]]],
    ["an enum that is not an array", { type: "string", enum: "a" }, [["/enum", "invalid_enum"]]],
    [
      "a duplicate enum member",
      { type: "string", enum: ["a", "b", "a"] },
      [["/enum/2", "invalid_enum"]],
    ],
    ["0 and -0 in one enum", { type: "number", enum: [0, -0] }, [["/enum/1", "invalid_enum"]]],
    ["a member of another type", { type: "string", enum: ["a", 1] }, [["/enum/1", "invalid_enum"]]],
    [
      "a fractional member of an integer enum",
      { type: "integer", enum: [1, 1.5] },
      [["/enum/1", "invalid_enum"]],
    ],
    [
      "an unsafe member of an integer enum",
      { type: "integer", enum: [2 ** 53] },
      [["/enum/0", "invalid_enum"]],
    ],
    [
      "a string member of a boolean enum",
      { type: "boolean", enum: ["true"] },
      [["/enum/0", "invalid_enum"]],
    ],
    [
      "a member of a null enum that is not null",
      { type: "null", enum: [0] },
      [["/enum/0", "invalid_enum"]],
    ],
    [
      "a member too short",
      { type: "string", minLength: 2, enum: ["ab", "😀"] },
      [["/enum/1", "invalid_enum"]],
    ],
    [
      "a member too long",
      { type: "string", maxLength: 1, enum: ["😀", "ab"] },
      [["/enum/1", "invalid_enum"]],
    ],
    [
      "a member below minimum",
      { type: "integer", minimum: 0, enum: [-1, 0] },
      [["/enum/0", "invalid_enum"]],
    ],
    [
      "a member above maximum",
      { type: "number", maximum: 1, enum: [1.5] },
      [["/enum/0", "invalid_enum"]],
    ],
    ["an object member", { type: "string", enum: [{}] }, [["/enum/0", "invalid_enum"]]],
    // Values that are not JSON data.
    ["a NaN bound", { type: "number", minimum: Number.NaN }, [["/minimum", "not_json"]]],
    [
      "an infinite bound",
      { type: "number", maximum: Number.POSITIVE_INFINITY },
      [["/maximum", "not_json"]],
    ],
    ["an undefined member", { type: "string", title: undefined }, [["/title", "not_json"]]],
    ["a lone surrogate", { type: "string", enum: ["\ud800"] }, [["/enum/0", "not_json"]]],
    ["a class instance", { type: "string", title: new Date(0) }, [["/title", "not_json"]]],
  ])("%s", (_name, schema, expected) => {
    expect(issuesOf(schema)).toEqual(expected);
  });

  it("suggests the keyword a typo was meant to be", () => {
    const r = checkResultSchema({ type: "string", maxLenght: 3 });
    expect(r.ok ? "" : r.issues[0]?.message).toContain('"maxLength"');
  });

  it("reports every issue in one pass, each with its pointer", () => {
    const schema = obj(
      {
        name: { type: "string", pattern: "x", maxLenght: 3 },
        tags: { type: "array", items: [{ type: "string" }] },
        n: { type: "integer", minimum: 3, maximum: 1 },
      },
      { required: ["name", "name", "zz"], additionalProperties: true, allOf: [] },
    );
    expect(issuesOf(schema)).toEqual([
      ["/allOf", "unsupported_keyword"],
      ["/properties/name/pattern", "unsupported_keyword"],
      ["/properties/name/maxLenght", "unknown_keyword"],
      ["/properties/tags/items", "invalid_keyword_value"],
      ["/properties/tags", "missing_keyword"],
      ["/properties/n/minimum", "inverted_bounds"],
      ["/additionalProperties", "invalid_keyword_value"],
      ["/required/1", "invalid_required"],
      ["/required/2", "invalid_required"],
    ]);
  });

  it("names a title's line break and its offset in code points", () => {
    const r = checkResultSchema({ type: "null", title: "\u{1F680} wipe x\nSee:" });
    expect(r.ok ? [] : r.issues).toEqual([
      {
        path: "/title",
        code: "line_break",
        message:
          "got U+000A (a line feed) at character 8; expected a title on one line (a description may break lines)",
      },
    ]);
  });

  it("says what was expected in every message", () => {
    const r = checkResultSchema({ type: "string", $ref: "#", minimum: 1, enum: [] });
    expect(r.ok).toBe(false);
    if (!r.ok) for (const issue of r.issues) expect(issue.message).toMatch(/expected/);
  });
});
