import { parseJson } from "@rukh/json";
import { describe, expect, it } from "vitest";
import {
  type CommandSpec,
  compareDecimal,
  decodeCliInputs,
  decodeJsonInputs,
  type InputIssueCode,
  type InputSpec,
  validateInputs,
} from "../src/index.js";

const input = (spec: Partial<InputSpec> & Pick<InputSpec, "type">): InputSpec =>
  ({ id: "v", summary: "v", required: false, cli: { flag: "v" }, ...spec }) as InputSpec;
const command = (...inputs: InputSpec[]): CommandSpec => ({
  id: "c",
  identity: "x.y/c",
  path: ["c"],
  aliases: [],
  summary: "c",
  inputs,
  execute: { mapping: "managed", program: "c.mjs", runtime: "node", lifetime: "foreground" },
  requests: { actions: [], resources: [] },
});

function viaCli(cmd: CommandSpec, tokens: string[]) {
  const d = decodeCliInputs(cmd, new Map([["v", tokens]]));
  return d.ok ? validateInputs(cmd, d.value) : d;
}
function viaJson(cmd: CommandSpec, literal: string) {
  const parsed = parseJson(`{"v":${literal}}`, { numbers: "exact" });
  if (!parsed.ok) throw parsed.error;
  const d = decodeJsonInputs(cmd, parsed.value);
  return d.ok ? validateInputs(cmd, d.value) : d;
}
const outcome = (r: ReturnType<typeof viaCli>) =>
  r.ok ? r.value.values.v : r.issues.map((i) => i.code).join(",");

describe("CLI text decoding", () => {
  it.each<[string, Partial<InputSpec> & Pick<InputSpec, "type">, string, unknown]>([
    ["integer", { type: "integer" }, "42", 42],
    ["negative integer", { type: "integer" }, "-7", -7],
    ["integer -0 normalizes", { type: "integer" }, "-0", 0],
    ["hex is not an integer", { type: "integer" }, "0x10", "expected_integer"],
    ["exponent is not an integer on the CLI", { type: "integer" }, "1e3", "expected_integer"],
    ["leading zero", { type: "integer" }, "08080", "expected_integer"],
    ["plus sign", { type: "integer" }, "+1", "expected_integer"],
    ["underscore", { type: "integer" }, "1_000", "expected_integer"],
    ["whitespace", { type: "integer" }, " 1", "expected_integer"],
    ["2^53 is out of range", { type: "integer" }, "9007199254740992", "out_of_range"],
    [
      "2^53+1 is out of range, not rounded",
      { type: "integer" },
      "9007199254740993",
      "out_of_range",
    ],
    ["max safe integer", { type: "integer" }, "9007199254740991", 9007199254740991],
    ["integer bounds", { type: "integer", maximum: 10 }, "11", "above_maximum"],
    ["number", { type: "number" }, "1e3", 1000],
    ["number fraction", { type: "number" }, "-0.5", -0.5],
    ["number overflow", { type: "number" }, "1e400", "out_of_range"],
    ["number hex", { type: "number" }, "0x10", "expected_number"],
    ["number Infinity", { type: "number" }, "Infinity", "expected_number"],
    ["decimal", { type: "decimal" }, "12.50", "12.50"],
    [
      "decimal kept exactly",
      { type: "decimal" },
      "0.1000000000000000000001",
      "0.1000000000000000000001",
    ],
    ["decimal trailing dot", { type: "decimal" }, "1.", "expected_decimal"],
    ["decimal exponent", { type: "decimal" }, "1e2", "expected_decimal"],
    ["decimal max", { type: "decimal", maximum: "1.5" }, "1.50000000000000000001", "above_maximum"],
    ["decimal at max", { type: "decimal", maximum: "1.5" }, "1.500", "1.500"],
    ["boolean true", { type: "boolean" }, "true", true],
    ["boolean yes", { type: "boolean" }, "yes", "expected_boolean"],
    ["enum", { type: "enum", values: ["a", "b"] }, "b", "b"],
    ["enum is exact", { type: "enum", values: ["a", "b"] }, "B", "not_in_enum"],
    ["string with astral", { type: "string", maxLength: 2 }, "😀😀", "😀😀"],
    ["string length in code points", { type: "string", maxLength: 2 }, "😀😀😀", "too_long"],
    ["string U+0000", { type: "string" }, "a\u0000", "invalid_string"],
    ["string lone surrogate", { type: "string" }, "a\ud800", "invalid_string"],
  ])("%s", (_n, spec, token, want) => {
    expect(outcome(viaCli(command(input(spec)), [token]))).toEqual(want);
  });

  it("keeps list order and applies list bounds", () => {
    const cmd = command(
      input({ type: "list", items: { type: "integer" }, maxItems: 3, minItems: 1 } as InputSpec),
    );
    expect(outcome(viaCli(cmd, ["3", "1", "2"]))).toEqual([3, 1, 2]);
    expect(outcome(viaCli(cmd, ["1", "2", "3", "4"]))).toBe("too_many_items");
    expect(outcome(viaCli(cmd, []))).toBe("too_few_items");
  });

  it("rejects a scalar given twice", () => {
    expect(outcome(viaCli(command(input({ type: "string" })), ["a", "b"]))).toBe("repeated_input");
  });
});

describe("JSON decoding", () => {
  it.each<[string, Partial<InputSpec> & Pick<InputSpec, "type">, string, unknown]>([
    ["integer", { type: "integer" }, "42", 42],
    ["1.0 is the integer 1", { type: "integer" }, "1.0", 1],
    ["1e2 is the integer 100", { type: "integer" }, "1e2", 100],
    ["100e-2 is the integer 1", { type: "integer" }, "100e-2", 1],
    ["1.5 is not an integer", { type: "integer" }, "1.5", "expected_integer"],
    [
      "1.0000000000000001 is not an integer",
      { type: "integer" },
      "1.0000000000000001",
      "expected_integer",
    ],
    ["1e-400 is not an integer", { type: "integer" }, "1e-400", "expected_integer"],
    ["2^53 rejected", { type: "integer" }, "9007199254740992", "out_of_range"],
    ["2^53+1 rejected, not rounded", { type: "integer" }, "9007199254740993", "out_of_range"],
    [
      "90071992547409910e-1 is max safe",
      { type: "integer" },
      "90071992547409910e-1",
      9007199254740991,
    ],
    ["string is not an integer", { type: "integer" }, '"5"', "expected_integer"],
    ["null is never omitted", { type: "integer" }, "null", "null_not_allowed"],
    ["number", { type: "number" }, "1.5", 1.5],
    ["-0 normalizes", { type: "number" }, "-0", 0],
    ["decimal as string", { type: "decimal" }, '"12.50"', "12.50"],
    ["decimal as number rejected", { type: "decimal" }, "12.5", "expected_decimal"],
    ["boolean", { type: "boolean" }, "false", false],
    ["boolean as string rejected", { type: "boolean" }, '"true"', "expected_boolean"],
    ["enum", { type: "enum", values: ["a"] }, '"a"', "a"],
    ["enum number rejected", { type: "enum", values: ["1"] }, "1", "expected_enum"],
    ["string U+0000 escaped", { type: "string" }, '"a\\u0000"', "invalid_string"],
    [
      "list must be an array",
      { type: "list", items: { type: "string" }, maxItems: 2 } as InputSpec,
      '"a"',
      "expected_list",
    ],
    [
      "list null",
      { type: "list", items: { type: "string" }, maxItems: 2 } as InputSpec,
      "null",
      "null_not_allowed",
    ],
    [
      "list element exact integers",
      { type: "list", items: { type: "integer" }, maxItems: 3 } as InputSpec,
      "[1.0, 2e0, 3]",
      [1, 2, 3],
    ],
    [
      "list element null",
      { type: "list", items: { type: "integer" }, maxItems: 3 } as InputSpec,
      "[1, null]",
      "null_not_allowed",
    ],
  ])("%s", (_n, spec, literal, want) => {
    expect(outcome(viaJson(command(input(spec)), literal))).toEqual(want);
  });

  it("rejects unknown properties and non-object arguments", () => {
    const cmd = command(input({ type: "string" }));
    const d = decodeJsonInputs(cmd, { v: "x", definitely_not_an_option: 1 });
    expect(d.ok ? [] : d.issues).toEqual([
      expect.objectContaining({ code: "unknown_input", path: "/definitely_not_an_option" }),
    ]);
    expect(decodeJsonInputs(cmd, [] as never).ok).toBe(false);
    expect(decodeJsonInputs(cmd, undefined)).toEqual({ ok: true, value: { values: new Map() } });
  });
});

describe("validateInputs", () => {
  const cmd = command(
    input({ id: "a", type: "integer", required: true }),
    input({ id: "b", type: "string", default: "dflt" }),
    input({ id: "c", type: "boolean" }),
  );
  it("applies defaults, records explicit ids and reports missing required inputs", () => {
    const r = validateInputs(cmd, { values: new Map([["a", 1]]) });
    expect(r).toEqual({ ok: true, value: { values: { a: 1, b: "dflt" }, explicit: ["a"] } });
    const missing = validateInputs(cmd, { values: new Map() });
    expect(missing.ok ? [] : missing.issues.map((i) => [i.path, i.code])).toEqual([
      ["/a", "missing_required"],
    ]);
  });

  it("re-checks types of values built by hand", () => {
    const r = validateInputs(cmd, {
      values: new Map<string, never>([
        ["a", "1" as never],
        ["zzz", 1 as never],
      ]),
    });
    const codes: InputIssueCode[] = r.ok ? [] : r.issues.map((i) => i.code);
    expect(codes.sort()).toEqual(["expected_integer", "unknown_input"]);
  });

  it("reports every issue, not the first", () => {
    const d = decodeCliInputs(
      cmd,
      new Map([
        ["a", ["x"]],
        ["c", ["maybe"]],
      ]),
    );
    expect(d.ok ? [] : d.issues.map((i) => i.path)).toEqual(["/a", "/c"]);
  });
});

describe("compareDecimal", () => {
  it.each<[string, string, number]>([
    ["1.50", "1.5", 0],
    ["-0", "0.000", 0],
    ["-1", "0", -1],
    ["10", "9.999", 1],
    ["-10", "-9.999", -1],
    ["0.1", "0.10000000000000000001", -1],
    ["123456789012345678901234567890", "123456789012345678901234567891", -1],
  ])("%s vs %s", (a, b, want) => {
    expect(Math.sign(compareDecimal(a, b))).toBe(want);
    expect(Math.sign(compareDecimal(b, a))).toBe(-want || 0);
  });
});
