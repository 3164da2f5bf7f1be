import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "DEFAULT_JSON_LIMITS",
      "JSON_ERROR_CODES",
      "JSON_MAX_BYTES",
      "JSON_MAX_DEPTH",
      "JSON_MAX_NODES",
      "JSON_PARSE_ERROR_CODES",
      "JsonChecker",
      "JsonError",
      "canonicalJson",
      "codePointLength",
      "editDistance",
      "findInvisible",
      "findLineBreak",
      "fingerprint",
      "lineColumn",
      "nearestWord",
      "numberSourceText",
      "parseJson",
      "pointerAppend",
      "pointerOffset",
      "replaceInvisible",
      "sha256Hex",
      "typoLimit",
    ]
  `);
});
