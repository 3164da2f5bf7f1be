import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { canonicalize } from "json-canonicalize";
import { describe, expect, it } from "vitest";
import { canonicalJson, fingerprint, type JsonValue, parseJson, sha256Hex } from "../src/index.js";

// Deterministic by default; FC_SEED=<n> explores other seeds.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_130) });

const vectors = fileURLToPath(
  new URL("../../../fixtures/external/json-canonicalization/", import.meta.url),
);

describe("RFC 8785 vectors (cyberphone/json-canonicalization)", () => {
  const names = readdirSync(`${vectors}input`);
  it("has the vectors", () => expect(names.length).toBeGreaterThanOrEqual(6));
  it.each(names)("%s is byte-exact", (name) => {
    const parsed = parseJson(readFileSync(`${vectors}input/${name}`));
    if (!parsed.ok) throw parsed.error;
    const expected = readFileSync(`${vectors}output/${name}`);
    expect(Buffer.from(canonicalJson(parsed.value), "utf8").equals(expected)).toBe(true);
    expect(Buffer.from(canonicalJson(parsed.value), "utf8").toString("hex")).toBe(
      readFileSync(`${vectors}outhex/${name.replace(/\.json$/, ".txt")}`, "utf8").replace(
        /\s+/g,
        "",
      ),
    );
  });
});

// JSON values whose keys avoid "toJSON", which json-canonicalize mishandles (see _canonical.ts).
const jsonValue = fc
  .jsonValue({ maxDepth: 4 })
  .filter((v) => !JSON.stringify(v).includes('"toJSON"'));

describe("canonicalJson", () => {
  it("agrees with json-canonicalize on generated JSON", () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        expect(canonicalJson(v as JsonValue)).toBe(canonicalize(v));
      }),
      { numRuns: 500 },
    );
  });

  it("is stable under re-parsing and key order", () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        const once = canonicalJson(v as JsonValue);
        const again = parseJson(once, { numbers: "exact" });
        expect(again.ok && canonicalJson(again.value)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });

  it("sorts members of an object that has a toJSON key", () => {
    expect(canonicalJson({ toJSON: 1, b: 2, a: 3 })).toBe('{"a":3,"b":2,"toJSON":1}');
  });

  it("sorts keys an engine keeps in numeric order, and keeps a __proto__ member", () => {
    expect(canonicalJson({ "9": 1, "10": 2, a: { "2": 0, "1": 0 } })).toBe(
      '{"10":2,"9":1,"a":{"1":0,"2":0}}',
    );
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":1}}'))).toBe(
      '{"__proto__":{"x":1},"b":1}',
    );
  });

  it("sorts by UTF-16 code units, not code points", () => {
    expect(canonicalJson({ "\u{1F600}": 1, "\uFFFF": 2 })).toBe('{"\u{1F600}":1,"\uFFFF":2}');
  });

  it("writes -0 as 0 and numbers in ECMAScript form", () => {
    expect(canonicalJson([-0, 1e21, 1e-7, 0.1, 100])).toBe("[0,1e+21,1e-7,0.1,100]");
  });

  it.each<[string, unknown, string]>([
    ["lone surrogate", ["\ud800"], "/0"],
    ["lone surrogate key", { a: { "\udc00": 1 } }, "/a/\udc00"],
    ["NaN", { n: Number.NaN }, "/n"],
    ["Infinity", [Number.POSITIVE_INFINITY], "/0"],
    ["undefined", { u: undefined }, "/u"],
    ["bigint", [1n], "/0"],
    ["Date", { d: new Date(0) }, "/d"],
  ])("rejects %s", (_n, value, pointer) => {
    expect(() => canonicalJson(value as JsonValue)).toThrowError(
      expect.objectContaining({
        code: "not_json",
        message: expect.stringContaining(`"${pointer}"`),
      }),
    );
  });

  it("rejects cycles", () => {
    const a: unknown[] = [];
    a.push(a);
    expect(() => canonicalJson(a as JsonValue)).toThrowError(/cycle/);
  });
});

describe("fingerprint", () => {
  it("is SHA-256 of the canonical text", () => {
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(fingerprint({ b: [1], a: "x" })).toBe(sha256Hex('{"a":"x","b":[1]}'));
    expect(fingerprint(["rukh.mcp-tool/1", "acme", "r1", "x/y"])).toMatch(/^[0-9a-f]{64}$/);
  });
});
