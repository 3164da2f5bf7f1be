import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_JSON_LIMITS, type JsonErrorCode, parseJson } from "../src/index.js";

// Deterministic by default; FC_SEED=<n> explores other seeds.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_130) });

// Every input on which parseJson and JSON.parse disagree must fall under one
// of these named policy rules (docs/json-policy.md); anything else is a bug.
function policyExplains(code: JsonErrorCode, text: string): boolean {
  switch (code) {
    case "duplicate_key":
    case "lone_surrogate":
    case "number_overflow":
    case "unsafe_integer":
    case "too_deep":
    case "too_many_nodes":
    case "too_large":
      return true;
    default:
      return text.length === 0 && code === "unexpected_end";
  }
}

function jsonParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

// Text mutations that stress the edges: duplicate keys, surrogates, big numbers, deep nesting.
const fragments = fc.constantFrom(
  '"a"',
  '"\\ud800"',
  '"\\udc00\\ud800"',
  '"\\ud83d\\ude00"',
  "9007199254740993",
  "-9007199254740991",
  "1e400",
  "1e-400",
  "1.0",
  "-0",
  "01",
  "[",
  "]",
  "{",
  "}",
  ":",
  ",",
  '{"a":1,"a":2}',
  '{"a":1,"\\u0061":2}',
  "true",
  "nul",
  " ",
  "\t",
  '"\u0001"',
  '"\\x"',
  "\ufeff",
);
const mutated = fc.oneof(
  fc.array(fragments, { maxLength: 12 }).map((parts) => parts.join("")),
  fc.tuple(fc.json({ maxDepth: 5 }), fc.nat(), fragments).map(([text, at, frag]) => {
    const i = at % (text.length + 1);
    return text.slice(0, i) + frag + text.slice(i);
  }),
  fc.nat({ max: 40 }).map((n) => `${"[".repeat(n)}1${"]".repeat(n)}`),
);

describe("differential against JSON.parse", () => {
  it("agrees on generated JSON text", () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), (text) => {
        const ours = parseJson(text);
        const theirs = jsonParse(text);
        if (ours.ok) expect(theirs).toEqual({ ok: true, value: ours.value });
        else expect(policyExplains(ours.error.code, text)).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });

  it("every disagreement on mutated text is a named policy rule", () => {
    fc.assert(
      fc.property(mutated, (text) => {
        const ours = parseJson(text);
        const theirs = jsonParse(text);
        if (ours.ok) {
          expect(theirs).toEqual({ ok: true, value: ours.value });
        } else if (theirs.ok) {
          expect([ours.error.code, policyExplains(ours.error.code, text)]).toEqual([
            ours.error.code,
            true,
          ]);
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it("agrees on arbitrary byte strings decoded as valid UTF-8", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const ours = parseJson(bytes);
        let text: string;
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          expect(ours.ok).toBe(false);
          return;
        }
        const theirs = jsonParse(text);
        if (ours.ok) expect(theirs).toEqual({ ok: true, value: ours.value });
        else if (theirs.ok)
          expect(
            policyExplains(ours.error.code, text) || ours.error.code === "byte_order_mark",
          ).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });

  it("agrees on long strings (the native fast path)", () => {
    const unit = fc.oneof(
      fc.string({ unit: "binary", minLength: 40, maxLength: 300 }),
      fc.string({
        unit: fc.constantFrom("a", "\\", '"', "\n", "é", "😀", "\u0000", "\ud800", "/"),
        minLength: 40,
        maxLength: 300,
      }),
    );
    fc.assert(
      fc.property(unit, fc.boolean(), (s, asKey) => {
        const text = asKey ? `{${JSON.stringify(s)}:1}` : `[${JSON.stringify(s)}]`;
        const ours = parseJson(text);
        if (s.isWellFormed()) expect(ours).toEqual({ ok: true, value: JSON.parse(text) });
        else expect(ours.ok ? null : ours.error.code).toBe("lone_surrogate");
      }),
      { numRuns: 2_000 },
    );
  });

  it("uses the default limits", () => {
    expect(DEFAULT_JSON_LIMITS.maxDepth).toBe(32);
  });
});
