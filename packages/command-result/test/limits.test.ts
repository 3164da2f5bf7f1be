import { canonicalJson, type JsonValue } from "@rukh/json";
import { describe, expect, it } from "vitest";
import { validateWithClock, validationClock } from "../src/_validate.js";
import {
  COMMAND_RESULT_LIMITS,
  COMMAND_RESULT_MAX_BYTES,
  type CommandResultIssueCode,
  type CommandResultLimits,
  checkResultSchema,
  RESULT_MAX_DEPTH,
  RESULT_MAX_NODES,
  RESULT_SCHEMA_MAX_BYTES,
  RESULT_VALIDATION_MAX_MS,
  type ResultDeclaration,
  type ResultSchema,
} from "../src/index.js";
import { validateUntimed } from "./_untimed.js";

type Codes = [string, CommandResultIssueCode][];
const codesOf = (r: {
  ok: boolean;
  issues?: readonly { path: string; code: CommandResultIssueCode }[];
}): Codes => (r.ok ? [] : (r.issues ?? []).map((i) => [i.path, i.code]));

function checked(schema: unknown): ResultSchema {
  const r = checkResultSchema(schema);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

// A string whose JSON text takes exactly n UTF-8 bytes, quotes excluded, mixing
// four-byte, two-byte, escaped and ASCII characters.
function filler(n: number): string {
  const unit = "😀é\n"; // 4 + 2 + 2 bytes as JSON
  return unit.repeat(Math.floor(n / 8)) + "x".repeat(n % 8);
}
const utf8 = (v: unknown) => Buffer.byteLength(canonicalJson(v as JsonValue), "utf8");

// Builds a value whose canonical JSON is exactly `size` bytes by sizing a filler string.
function sized(size: number, make: (pad: string) => unknown): unknown {
  const value = make(filler(size - utf8(make(""))));
  expect(utf8(value)).toBe(size);
  return value;
}
// The same value as bytes padded with whitespace to exactly `size` bytes.
function sizedBytes(size: number, value: unknown): Buffer {
  const text = JSON.stringify(value);
  return Buffer.from(text + " ".repeat(size - Buffer.byteLength(text)));
}

const nestedItems = (levels: number, leaf: object): object =>
  levels === 0 ? leaf : { type: "array", maxItems: 1, items: nestedItems(levels - 1, leaf) };
const nestedArrays = (levels: number): unknown =>
  levels === 0 ? null : [nestedArrays(levels - 1)];
const stringEnum = (n: number) => ({
  type: "string",
  enum: Array.from({ length: n }, (_, i) => `s${i}`),
});

describe("limit constants", () => {
  it("are the command-result/1 defaults, frozen", () => {
    expect(COMMAND_RESULT_LIMITS).toEqual({
      schemaMaxBytes: 65_536,
      resultMaxBytes: 131_072,
      maxDepth: 16,
      maxNodes: 2_048,
      validationMaxMs: 100,
    });
    expect([
      RESULT_SCHEMA_MAX_BYTES,
      COMMAND_RESULT_MAX_BYTES,
      RESULT_MAX_DEPTH,
      RESULT_MAX_NODES,
      RESULT_VALIDATION_MAX_MS,
    ]).toEqual([65_536, 131_072, 16, 2_048, 100]);
    expect(Object.isFrozen(COMMAND_RESULT_LIMITS)).toBe(true);
  });
});

describe("result schema limits: at the limit passes, one over fails", () => {
  const describedBy = (pad: string) => ({ type: "string", description: pad });
  it.each<[string, unknown, Codes]>([
    ["64 KiB as canonical JSON", sized(RESULT_SCHEMA_MAX_BYTES, describedBy), []],
    [
      "64 KiB + 1 as canonical JSON",
      sized(RESULT_SCHEMA_MAX_BYTES + 1, describedBy),
      [["/description", "too_large"]],
    ],
    ["64 KiB of source bytes", sizedBytes(RESULT_SCHEMA_MAX_BYTES, { type: "null" }), []],
    [
      "64 KiB + 1 of source bytes",
      sizedBytes(RESULT_SCHEMA_MAX_BYTES + 1, { type: "null" }),
      [["", "too_large"]],
    ],
    ["depth 16", nestedItems(14, { type: "string", enum: ["a"] }), []],
    [
      "depth 17",
      nestedItems(15, { type: "string", enum: ["a"] }),
      [[`${"/items".repeat(15)}/enum`, "too_deep"]],
    ],
    [
      "depth 16 from bytes",
      Buffer.from(JSON.stringify(nestedItems(14, { type: "string", enum: ["a"] }))),
      [],
    ],
    [
      "depth 17 from bytes",
      Buffer.from(JSON.stringify(nestedItems(15, { type: "string", enum: ["a"] }))),
      [["", "too_deep"]],
    ],
    ["2,048 members and elements", stringEnum(RESULT_MAX_NODES - 2), []],
    [
      "2,049 members and elements",
      stringEnum(RESULT_MAX_NODES - 1),
      [["/enum/2046", "too_many_nodes"]],
    ],
    ["2,048 from bytes", Buffer.from(JSON.stringify(stringEnum(RESULT_MAX_NODES - 2))), []],
    [
      "2,049 from bytes",
      Buffer.from(JSON.stringify(stringEnum(RESULT_MAX_NODES - 1))),
      [["", "too_many_nodes"]],
    ],
  ])("%s", (_name, schema, expected) => {
    expect(codesOf(checkResultSchema(schema))).toEqual(expected);
  });
});

describe("commandResult limits: at the limit passes, one over fails", () => {
  const string: ResultDeclaration = { kind: "structured", schema: checked({ type: "string" }) };
  const text: ResultDeclaration = { kind: "text" };
  const deep: ResultDeclaration = {
    kind: "structured",
    schema: checked(nestedItems(15, { type: "null" })),
  };
  const nulls: ResultDeclaration = {
    kind: "structured",
    schema: checked({ type: "array", maxItems: 5_000, items: { type: "null" } }),
  };
  const structuredString = (pad: string) => ({ kind: "structured", data: pad });
  const textOf = (pad: string) => ({ kind: "text", text: pad });
  const manyNulls = (n: number) => ({
    kind: "structured",
    data: Array.from({ length: n }, () => null),
  });

  it.each<[string, ResultDeclaration, unknown, Codes]>([
    ["128 KiB structured", string, sized(COMMAND_RESULT_MAX_BYTES, structuredString), []],
    [
      "128 KiB + 1 structured",
      string,
      sized(COMMAND_RESULT_MAX_BYTES + 1, structuredString),
      [["/data", "too_large"]],
    ],
    ["128 KiB text", text, sized(COMMAND_RESULT_MAX_BYTES, textOf), []],
    [
      "128 KiB + 1 text",
      text,
      sized(COMMAND_RESULT_MAX_BYTES + 1, textOf),
      [["/text", "too_large"]],
    ],
    ["128 KiB of source bytes", text, sizedBytes(COMMAND_RESULT_MAX_BYTES, textOf("x")), []],
    [
      "128 KiB + 1 of source bytes",
      text,
      sizedBytes(COMMAND_RESULT_MAX_BYTES + 1, textOf("x")),
      [["", "too_large"]],
    ],
    ["depth 16 (wrapper included)", deep, { kind: "structured", data: nestedArrays(15) }, []],
    [
      "depth 17",
      deep,
      { kind: "structured", data: nestedArrays(16) },
      [[`/data${"/0".repeat(15)}`, "too_deep"]],
    ],
    [
      "depth 16 from bytes",
      deep,
      Buffer.from(JSON.stringify({ kind: "structured", data: nestedArrays(15) })),
      [],
    ],
    [
      "depth 17 from bytes",
      deep,
      Buffer.from(JSON.stringify({ kind: "structured", data: nestedArrays(16) })),
      [["", "too_deep"]],
    ],
    ["2,048 members and elements (wrapper included)", nulls, manyNulls(RESULT_MAX_NODES - 2), []],
    [
      "2,049 members and elements",
      nulls,
      manyNulls(RESULT_MAX_NODES - 1),
      [["/data/2046", "too_many_nodes"]],
    ],
    ["2,048 from bytes", nulls, Buffer.from(JSON.stringify(manyNulls(RESULT_MAX_NODES - 2))), []],
    [
      "2,049 from bytes",
      nulls,
      Buffer.from(JSON.stringify(manyNulls(RESULT_MAX_NODES - 1))),
      [["", "too_many_nodes"]],
    ],
  ])("%s", (_name, declaration, received, expected) => {
    expect(codesOf(validateUntimed(declaration, received))).toEqual(expected);
  });

  it("measures in-memory values exactly as their canonical JSON, escapes and astral characters included", () => {
    for (const s of [
      "",
      "a",
      '"',
      "\\",
      "\u0000",
      "\u001f",
      "\u007f",
      "é",
      "\u2028",
      "😀",
      "a\tb",
    ]) {
      const value = { kind: "text", text: s };
      const size = utf8(value);
      expect(codesOf(validateUntimed(text, value, { limits: { resultMaxBytes: size } }))).toEqual(
        [],
      );
      expect(
        codesOf(validateUntimed(text, value, { limits: { resultMaxBytes: size - 1 } })),
      ).toEqual([["/text", "too_large"]]);
    }
    const numbers = { kind: "structured", data: [0, -0, 1.5, -1e-7, 1e21, 123456789, 2 ** 53 - 1] };
    const decl: ResultDeclaration = {
      kind: "structured",
      schema: checked({ type: "array", maxItems: 9, items: { type: "number" } }),
    };
    const size = utf8(numbers);
    expect(codesOf(validateUntimed(decl, numbers, { limits: { resultMaxBytes: size } }))).toEqual(
      [],
    );
    expect(
      codesOf(validateUntimed(decl, numbers, { limits: { resultMaxBytes: size - 1 } }))[0]?.[1],
    ).toBe("too_large");
  });
});

describe("limits stop work at the first breach", () => {
  it("rejects oversized bytes by their length before parsing", () => {
    const junk = Buffer.alloc(COMMAND_RESULT_MAX_BYTES + 1, 0xff); // not even UTF-8
    expect(codesOf(validateUntimed({ kind: "text" }, junk))).toEqual([["", "too_large"]]);
    const schemaJunk = Buffer.alloc(RESULT_SCHEMA_MAX_BYTES + 1, 0xff);
    expect(codesOf(checkResultSchema(schemaJunk))).toEqual([["", "too_large"]]);
  });

  it("stops parsing bytes at the breached count, before later malformed input", () => {
    const text = `{"kind":"structured","data":[${"null,".repeat(RESULT_MAX_NODES)}oops]}`;
    expect(codesOf(validateUntimed({ kind: "text" }, Buffer.from(text)))).toEqual([
      ["", "too_many_nodes"],
    ]);
  });

  it("stops walking an in-memory value at the breached count", () => {
    const data: unknown[] = Array.from({ length: RESULT_MAX_NODES + 10 }, () => null);
    Object.defineProperty(data, RESULT_MAX_NODES, {
      get() {
        throw new Error("walked past the limit");
      },
    });
    expect(codesOf(validateUntimed({ kind: "text" }, { kind: "structured", data }))).toEqual([
      ["/data/2046", "too_many_nodes"],
    ]);
  });

  it("rejects an over-long string by its length without scanning it", () => {
    const text = "\ud800".repeat(COMMAND_RESULT_MAX_BYTES); // would be not_json if scanned
    expect(codesOf(validateUntimed({ kind: "text" }, { kind: "text", text }))).toEqual([
      ["/text", "too_large"],
    ]);
  });
});

describe("caller limits", () => {
  const nulls: ResultDeclaration = {
    kind: "structured",
    schema: checked({ type: "array", maxItems: 5_000, items: { type: "null" } }),
  };
  const manyNulls = (n: number) => ({
    kind: "structured",
    data: Array.from({ length: n }, () => null),
  });

  it("applies a smaller limit", () => {
    expect(codesOf(validateUntimed(nulls, manyNulls(8), { limits: { maxNodes: 10 } }))).toEqual([]);
    expect(codesOf(validateUntimed(nulls, manyNulls(9), { limits: { maxNodes: 10 } }))).toEqual([
      ["/data/8", "too_many_nodes"],
    ]);
    expect(codesOf(checkResultSchema(stringEnum(3), { limits: { maxNodes: 4 } }))).toEqual([
      ["/enum/2", "too_many_nodes"],
    ]);
    expect(
      codesOf(checkResultSchema({ type: "null" }, { limits: { schemaMaxBytes: 10 } })),
    ).toEqual([["/type", "too_large"]]);
  });

  it("clamps a larger limit to the default", () => {
    const limits = { maxNodes: 1_000_000, maxDepth: 100, resultMaxBytes: 2 ** 30 };
    expect(codesOf(validateUntimed(nulls, manyNulls(RESULT_MAX_NODES - 1), { limits }))).toEqual([
      ["/data/2046", "too_many_nodes"],
    ]);
  });

  it("treats an undefined limit as unset", () => {
    const limits = { maxNodes: undefined } as unknown as Partial<CommandResultLimits>;
    expect(codesOf(validateUntimed(nulls, manyNulls(3), { limits }))).toEqual([]);
  });

  it.each<[string, unknown]>([
    ["a negative count", { maxNodes: -1 }],
    ["a fractional count", { maxDepth: 1.5 }],
    ["NaN", { resultMaxBytes: Number.NaN }],
    ["a string", { schemaMaxBytes: "64k" }],
    ["an infinite time", { validationMaxMs: Number.POSITIVE_INFINITY }],
    ["a negative time", { validationMaxMs: -1 }],
    ["an unknown name", { maxNode: 10 }],
    ["not an object", 5],
  ])("rejects %s", (_name, limits) => {
    const options = { limits } as { limits: Partial<CommandResultLimits> };
    expect(codesOf(validateUntimed({ kind: "text" }, { kind: "text", text: "" }, options))).toEqual(
      [["", "invalid_limits"]],
    );
    expect(codesOf(checkResultSchema({ type: "null" }, options))).toEqual([["", "invalid_limits"]]);
  });
});

describe("elapsed validation time", () => {
  // A clock that reads `start` first and `then` on every later call.
  const clock = (start: number, then: number) => {
    let first = true;
    return () => {
      if (first) {
        first = false;
        return start;
      }
      return then;
    };
  };
  const nulls: ResultDeclaration = {
    kind: "structured",
    schema: checked({ type: "array", maxItems: 5_000, items: { type: "null" } }),
  };
  const big = { kind: "structured", data: Array.from({ length: 1_000 }, () => null) };

  it.each<[string, number, number | undefined, Codes]>([
    ["100 ms elapsed passes", 100, undefined, []],
    ["100.001 ms elapsed fails", 100.001, undefined, [["", "too_slow"]]],
    ["a smaller limit, at it", 5, 5, []],
    ["a smaller limit, over it", 5.5, 5, [["", "too_slow"]]],
    ["a larger limit is clamped", 101, 1_000, [["", "too_slow"]]],
  ])("%s", (_name, elapsed, validationMaxMs, expected) => {
    const options = validationMaxMs === undefined ? undefined : { limits: { validationMaxMs } };
    expect(codesOf(validateWithClock(nulls, big, options, clock(1_000, 1_000 + elapsed)))).toEqual(
      expected,
    );
  });

  it("stops the interpreter part-way once the time is up", () => {
    let calls = 0;
    const ticking = () => {
      calls++;
      return calls <= 2 ? 0 : 1_000; // start, after reading; then expired
    };
    expect(codesOf(validateWithClock(nulls, big, undefined, ticking))).toEqual([["", "too_slow"]]);
    expect(calls).toBeLessThan(5); // the walk was abandoned, not finished
  });

  it("stops on elapsed time only while the validation uses the CPU: a host waiting for a core fails no result", () => {
    // Elapsed time races past the bound; the CPU time barely moves (a loaded host).
    let wall = 0;
    let cpu = 0;
    const waiting = () => (wall += 40);
    const idleCpu = () => (cpu += 0.01);
    expect(codesOf(validateWithClock(nulls, big, undefined, waiting, idleCpu))).toEqual([]);
    // Both move: the validation itself is slow, and it stops.
    const busy = () => (cpu += 40);
    // However little CPU it used, it stops past ten times the bound, elapsed (a host starved for long).
    let starved = 0;
    const late = () => (starved += 1_100 / 3);
    expect(codesOf(validateWithClock(nulls, big, undefined, late, idleCpu))).toEqual([
      ["", "too_slow"],
    ]);
    expect(codesOf(validateWithClock(nulls, big, undefined, waiting, busy))).toEqual([
      ["", "too_slow"],
    ]);
  });

  it("keeps its clock in elapsed time: a wait that uses no CPU moves it", () => {
    const t0 = validationClock();
    // Blocks this thread for 60 ms without running anything.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60);
    expect(validationClock() - t0).toBeGreaterThanOrEqual(55);
  });
});
