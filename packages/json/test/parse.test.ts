import { describe, expect, it } from "vitest";
import {
  codePointLength,
  DEFAULT_JSON_LIMITS,
  JSON_ERROR_CODES,
  JSON_MAX_BYTES,
  JSON_PARSE_ERROR_CODES,
  JsonError,
  type JsonErrorCode,
  numberSourceText,
  parseJson,
  pointerAppend,
} from "../src/index.js";

const bytes = (...b: number[]) => Uint8Array.from(b);

describe("parseJson rejects with a stable code and byte offset", () => {
  it.each<[string, string | Uint8Array, JsonErrorCode, number]>([
    ["empty input", "", "unexpected_end", 0],
    ["whitespace only", "  \n", "unexpected_end", 3],
    ["byte order mark", bytes(0xef, 0xbb, 0xbf, 0x7b, 0x7d), "byte_order_mark", 0],
    ["duplicate key", '{"a":1,"a":2}', "duplicate_key", 7],
    ["duplicate key after unescaping", '{"a":1,"\\u0061":2}', "duplicate_key", 7],
    ["escaped lone high surrogate", '["\\ud800"]', "lone_surrogate", 2],
    ["escaped lone low surrogate", '["\\udc00x"]', "lone_surrogate", 2],
    ["high surrogate then non-low escape", '["\\ud800\\u0041"]', "lone_surrogate", 2],
    ["raw encoded surrogate (CESU)", bytes(0x22, 0xed, 0xa0, 0x80, 0x22), "invalid_utf8", 1],
    ["overlong encoding", bytes(0x22, 0xc0, 0xaf, 0x22), "invalid_utf8", 1],
    ["truncated sequence", bytes(0x22, 0xe2, 0x82, 0x22), "invalid_utf8", 1],
    ["above U+10FFFF", bytes(0x22, 0xf4, 0x90, 0x80, 0x80, 0x22), "invalid_utf8", 1],
    ["lone continuation byte", bytes(0x22, 0x61, 0x80, 0x22), "invalid_utf8", 2],
    ["number overflow", "[1e400]", "number_overflow", 1],
    ["negative overflow", "-1.5e308000", "number_overflow", 0],
    ["unsafe integer", '{"n":9007199254740992}', "unsafe_integer", 5],
    ["unsafe negative integer", "-9007199254740993", "unsafe_integer", 0],
    ["leading zero", "[01]", "unexpected_token", 2],
    ["bare minus", "[-]", "invalid_number", 2],
    ["dot without digits", "[1.]", "invalid_number", 3],
    ["exponent without digits", "[1e+]", "invalid_number", 4],
    ["trailing content", '{"a":1} x', "trailing_content", 8],
    ["two values", "1 2", "trailing_content", 2],
    ["trailing comma in array", "[1,]", "unexpected_token", 3],
    ["trailing comma in object", '{"a":1,}', "unexpected_token", 7],
    ["missing colon", '{"a" 1}', "unexpected_token", 5],
    ["single quotes", "['a']", "unexpected_token", 1],
    ["control character in string", '["a\tb"]', "control_character", 3],
    ["bad escape", '["\\x"]', "invalid_escape", 2],
    ["bad hex escape", '["\\u12g4"]', "invalid_escape", 6],
    ["unterminated string", '["abc', "unexpected_end", 5],
    ["unterminated array", "[1,2", "unexpected_end", 4],
    ["bad literal", "[tru]", "unexpected_token", 4],
    ["truncated literal", "nul", "unexpected_end", 3],
    ["long string: control character", `["${"a".repeat(60)}\n"]`, "control_character", 62],
    ["long string: bad escape", `["${"a".repeat(60)}\\q"]`, "invalid_escape", 62],
    ["long string: escaped lone surrogate", `["${"a".repeat(60)}\\udc00"]`, "lone_surrogate", 62],
    ["long string: unterminated", `["${"a".repeat(60)}`, "unexpected_end", 62],
    [
      "long string: invalid UTF-8",
      Buffer.concat([Buffer.from(`["${"é".repeat(40)}`), bytes(0xc3, 0x28, 0x22, 0x5d)]),
      "invalid_utf8",
      82,
    ],
    ["unpaired surrogate in a JS string input", `["a\ud800"]`, "lone_surrogate", 3],
  ])("%s", (_name, input, code, offset) => {
    const result = parseJson(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(JsonError);
    expect(result.error.code).toBe(code);
    expect(result.error.offset).toBe(offset);
    expect(result.error.message).toMatch(/expected/);
    expect(result.error.message).toContain(`at byte ${offset}`);
  });
});

// Which failures say the bytes are not JSON at all (a JSON-RPC parse error),
// and which refuse JSON text for what it holds or how large it is.
describe("parse-error codes", () => {
  it.each<[JsonErrorCode, boolean]>(
    JSON_ERROR_CODES.map((code) => [
      code,
      !["unsafe_integer", "too_large", "too_deep", "too_many_nodes", "invalid_limits"].includes(
        code,
      ),
    ]),
  )("%s is a parse error: %s", (code, parseError) => {
    expect(JSON_PARSE_ERROR_CODES.includes(code)).toBe(parseError);
  });
});

describe("limits", () => {
  it("exports the documented defaults", () => {
    expect(DEFAULT_JSON_LIMITS).toEqual({ maxBytes: 1_048_576, maxDepth: 32, maxNodes: 4_096 });
    expect(JSON_MAX_BYTES).toBe(1_048_576);
  });

  it("accepts exactly the depth limit and rejects one more", () => {
    expect(parseJson(`${"[".repeat(32)}${"]".repeat(32)}`).ok).toBe(true);
    const r = parseJson(`${"[".repeat(33)}${"]".repeat(33)}`);
    expect(r.ok ? null : [r.error.code, r.error.offset]).toEqual(["too_deep", 32]);
  });

  it("counts members and elements over the whole document", () => {
    const ok = JSON.stringify({ a: Array(2_047).fill(0), b: Array(2_047).fill(1) });
    expect(parseJson(ok).ok).toBe(true); // 2 members + 4094 elements
    const over = JSON.stringify({ a: Array(2_047).fill(0), b: Array(2_048).fill(1) });
    const r = parseJson(over);
    expect(r.ok ? null : r.error.code).toBe("too_many_nodes");
  });

  it("rejects oversized input before reading it", () => {
    const r = parseJson(Buffer.alloc(JSON_MAX_BYTES + 1, 0x20));
    expect(r.ok ? null : [r.error.code, r.error.offset]).toEqual(["too_large", JSON_MAX_BYTES]);
    const s = parseJson(" ".repeat(JSON_MAX_BYTES + 1));
    expect(s.ok ? null : s.error.code).toBe("too_large");
  });

  it("measures string input in UTF-8 bytes", () => {
    const text = `"${"é".repeat(6)}"`; // 14 bytes, 8 code units
    expect(parseJson(text, { limits: { maxBytes: 14 } }).ok).toBe(true);
    const r = parseJson(text, { limits: { maxBytes: 13 } });
    expect(r.ok ? null : r.error.code).toBe("too_large");
  });

  it("takes tighter limits per call", () => {
    const r = parseJson('{"a":[1,2,3]}', { limits: { maxNodes: 3 } });
    expect(r.ok ? null : [r.error.code, r.error.offset]).toEqual(["too_many_nodes", 10]);
    const d = parseJson('{"a":{"b":{}}}', { limits: { maxDepth: 2 } });
    expect(d.ok ? null : d.error.code).toBe("too_deep");
  });

  it.each([{ maxDepth: -1 }, { maxDepth: 1.5 }, { maxDepth: 5_000 }, { maxBytes: Number.NaN }])(
    "throws invalid_limits for %o",
    (limits) => {
      expect(() => parseJson("1", { limits })).toThrowError(
        expect.objectContaining({ code: "invalid_limits" }),
      );
    },
  );
});

describe("values", () => {
  it("reads bytes and strings alike, including non-ASCII and escapes", () => {
    const text = '{"k":"caf\u00e9 \\u00e9 \\ud83d\\ude00 😀","n":[0,-0,1.5e2,-12,true,false,null]}';
    const fromString = parseJson(text);
    const fromBytes = parseJson(new TextEncoder().encode(text));
    expect(fromString).toEqual(fromBytes);
    expect(fromString).toEqual({ ok: true, value: JSON.parse(text) });
  });

  it("keeps __proto__ as plain data", () => {
    const r = parseJson('{"__proto__":{"polluted":true},"a":1}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const value = r.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(value.polluted).toBeUndefined();
    expect(parseJson('{"__proto__":1,"__proto__":2}').ok).toBe(false);
  });

  it("accepts U+0000 escaped in strings (the type rules downstream decide)", () => {
    expect(parseJson('"a\\u0000b"')).toEqual({ ok: true, value: "a\u0000b" });
  });

  it("keeps exact number text on request", () => {
    const r = parseJson('{"a":1.50,"b":[9007199254740993,7,1e2],"c":123456789012345678}', {
      numbers: "exact",
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const v = r.value as { a: number; b: number[]; c: number };
    expect(numberSourceText(v, "a")).toBe("1.50");
    expect(numberSourceText(v.b, 0)).toBe("9007199254740993");
    expect(numberSourceText(v.b, 1)).toBeUndefined();
    expect(numberSourceText(v.b, 2)).toBe("1e2");
    expect(numberSourceText(v, "c")).toBe("123456789012345678");
  });

  it("records nothing without exact mode", () => {
    const r = parseJson('{"a":1.50}');
    expect(r.ok && numberSourceText(r.value as object, "a")).toBeUndefined();
  });
});

describe("pointerAppend", () => {
  it.each<[string, string | number, string]>([
    ["", "a", "/a"],
    ["/x", 0, "/x/0"],
    ["/p", "a/b~c", "/p/a~1b~0c"],
    ["", "", "/"],
  ])("%s + %s", (base, token, expected) => expect(pointerAppend(base, token)).toBe(expected));
});

describe("codePointLength", () => {
  it.each<[string, number]>([
    ["", 0],
    ["abc", 3],
    ["a😀", 2],
    ["é", 1],
    ["\ud800", 1],
    ["\ud800x", 2],
    ["\udc00\ud800", 2],
  ])("%j has %i code points", (s, n) => expect(codePointLength(s)).toBe(n));
});
