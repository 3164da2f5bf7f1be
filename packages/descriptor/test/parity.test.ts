import { canonicalJson, type JsonValue, parseJson } from "@rukh/json";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CommandSpec,
  decodeCliInputs,
  decodeJsonInputs,
  type InputIssueCode,
  validateDescriptor,
  validateInputs,
} from "../src/index.js";

// Deterministic by default; FC_SEED=<n> explores other seeds.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_130) });

// Each generated input carries how to render one valid value as CLI text and
// as a JSON literal (in any of the spellings JSON allows), and how to render
// invalid values with the issue code both paths must report.
type Rendered = { cli: string[]; json: string };
type Fault = { cli: string[]; json: string; code: InputIssueCode };
interface GenInput {
  decl: Record<string, JsonValue>;
  value: fc.Arbitrary<Rendered>;
  faults: Fault[];
}

const units = ["a", "Z", " ", "-", '"', "\\", "\n", "é", "😀", "ß", "\u2028", "/", "{"];
const str = (min: number, max: number, from: readonly string[] = units) =>
  fc.array(fc.constantFrom(...from), { minLength: min, maxLength: max }).map((u) => u.join(""));
// An enum value is one line of the descriptor: no line breaks.
const oneLineUnits = units.filter((u) => u !== "\n" && u !== "\u2028");

function integerLiterals(n: number): fc.Arbitrary<string> {
  const alts = [String(n), `${n}.0`, `${n}e0`, `${n}.000`];
  if (n !== 0 && n % 100 === 0) alts.push(`${n / 100}e2`, `${n / 100}E+2`);
  if (n !== 0 && Math.abs(n) < 1e6) alts.push(`${n}0e-1`);
  return fc.constantFrom(...alts);
}

const scalarGen: Record<
  string,
  (bounded: boolean) => fc.Arbitrary<{
    decl: Record<string, JsonValue>;
    item: fc.Arbitrary<Rendered>;
    faults: Fault[];
  }>
> = {
  string: (bounded) =>
    fc.record({ min: fc.nat(3), extra: fc.nat(6) }).map(({ min, extra }) => {
      const max = min + extra;
      return {
        decl: bounded ? { type: "string", minLength: min, maxLength: max } : { type: "string" },
        item: str(bounded ? min : 0, bounded ? max : 8).map((s) => ({
          cli: [s],
          json: JSON.stringify(s),
        })),
        faults: [
          { cli: ["a\u0000"], json: '"a\\u0000"', code: "invalid_string" as const },
          ...(bounded
            ? [
                {
                  cli: ["x".repeat(max + 1)],
                  json: JSON.stringify("x".repeat(max + 1)),
                  code: "too_long" as const,
                },
              ]
            : []),
        ],
      };
    }),
  integer: (bounded) =>
    fc
      .record({ lo: fc.integer({ min: -1000, max: 1000 }), span: fc.nat(5000) })
      .map(({ lo, span }) => {
        const hi = lo + span;
        return {
          decl: bounded ? { type: "integer", minimum: lo, maximum: hi } : { type: "integer" },
          item: (bounded ? fc.integer({ min: lo, max: hi }) : fc.maxSafeInteger()).chain((n) =>
            integerLiterals(n).map((lit) => ({ cli: [String(n)], json: lit })),
          ),
          faults: [
            { cli: ["1.5"], json: "1.5", code: "expected_integer" as const },
            { cli: ["9007199254740993"], json: "9007199254740993", code: "out_of_range" as const },
            { cli: ["seven"], json: '"seven"', code: "expected_integer" as const },
            ...(bounded
              ? [{ cli: [String(hi + 1)], json: `${hi + 1}.0`, code: "above_maximum" as const }]
              : []),
          ],
        };
      }),
  number: () =>
    fc.constant({
      decl: { type: "number" },
      item: fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .map((x) => ({ cli: [String(x)], json: JSON.stringify(x) })),
      faults: [{ cli: ["abc"], json: '"abc"', code: "expected_number" as const }],
    }),
  decimal: () =>
    fc.constant({
      decl: { type: "decimal" },
      item: fc
        .tuple(
          fc.boolean(),
          fc.bigInt({ min: 0n, max: 10n ** 30n }),
          fc.option(fc.stringMatching(/^[0-9]{1,20}$/)),
        )
        .map(([neg, int, frac]) => {
          const s = `${neg ? "-" : ""}${int}${frac === null ? "" : `.${frac}`}`;
          return { cli: [s], json: JSON.stringify(s) };
        }),
      faults: [
        { cli: ["1."], json: '"1."', code: "expected_decimal" as const },
        { cli: ["1e2"], json: "100", code: "expected_decimal" as const },
      ],
    }),
  boolean: () =>
    fc.constant({
      decl: { type: "boolean" },
      item: fc.boolean().map((b) => ({ cli: [String(b)], json: String(b) })),
      faults: [{ cli: ["yes"], json: '"yes"', code: "expected_boolean" as const }],
    }),
  enum: () =>
    fc.uniqueArray(str(1, 4, oneLineUnits), { minLength: 1, maxLength: 5 }).map((values) => ({
      decl: { type: "enum", values },
      item: fc.constantFrom(...values).map((v) => ({ cli: [v], json: JSON.stringify(v) })),
      faults: [{ cli: ["\u0001never"], json: '"\\u0001never"', code: "not_in_enum" as const }],
    })),
};

const genInput: fc.Arbitrary<GenInput> = fc
  .record({
    type: fc.constantFrom("string", "integer", "number", "decimal", "boolean", "enum"),
    list: fc.boolean(),
    bounded: fc.boolean(),
    maxItems: fc.integer({ min: 1, max: 5 }),
  })
  .chain(({ type, list, bounded, maxItems }) =>
    scalarGen[type]!(bounded).map(({ decl, item, faults }): GenInput => {
      if (!list) return { decl, value: item, faults };
      return {
        decl: { type: "list", items: decl, maxItems },
        value: fc.array(item, { maxLength: maxItems }).map((xs) => ({
          cli: xs.flatMap((x) => x.cli),
          json: `[${xs.map((x) => x.json).join(",")}]`,
        })),
        faults: [
          ...faults.map((f) => ({ ...f, json: `[${f.json}]` })),
          {
            cli: Array(maxItems + 1).fill(faults[0]!.cli[0]!),
            json: `[${Array(maxItems + 1)
              .fill(faults[0]!.json)
              .join(",")}]`,
            code: faults[0]!.code,
          },
        ],
      };
    }),
  );

interface Case {
  command: CommandSpec;
  inputs: GenInput[];
  required: boolean[];
}

const genCommand: fc.Arbitrary<Case> = fc
  .array(fc.tuple(genInput, fc.boolean()), { minLength: 1, maxLength: 6 })
  .map((pairs) => {
    const inputs = pairs.map(([g]) => g);
    const required = pairs.map(([, r]) => r);
    const descriptor = {
      format: "rukh.extension/2",
      id: "gen.ext",
      version: "1.0.0",
      publisher: "gen",
      commands: [
        {
          id: "run",
          path: ["run"],
          summary: "generated",
          inputs: inputs.map((g, i) => ({
            ...g.decl,
            id: `in_${i}`,
            summary: `input ${i}`,
            ...(required[i] && { required: true }),
          })),
          execute: {
            mapping: "managed",
            program: "run.mjs",
            runtime: "node",
            result: { kind: "text" },
          },
        },
      ],
    };
    const parsed = validateDescriptor(descriptor as JsonValue);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    return { command: parsed.value.commands[0]!, inputs, required };
  });

function runCli(command: CommandSpec, raw: Map<string, string[]>) {
  const d = decodeCliInputs(command, raw);
  return d.ok ? validateInputs(command, d.value) : d;
}
function runJson(command: CommandSpec, members: string[]) {
  const parsed = parseJson(`{${members.join(",")}}`, { numbers: "exact" });
  if (!parsed.ok) throw parsed.error;
  const d = decodeJsonInputs(command, parsed.value);
  return d.ok ? validateInputs(command, d.value) : d;
}

describe("CLI/MCP parity", () => {
  it("valid inputs give byte-identical canonical typed inputs and identical explicit ids", () => {
    const scenario = genCommand.chain((c) =>
      fc.tuple(
        fc.constant(c),
        fc.tuple(
          ...c.inputs.map((g, i) =>
            c.required[i] ? g.value.map((v) => v as Rendered | null) : fc.option(g.value),
          ),
        ),
      ),
    );
    fc.assert(
      fc.property(scenario, ([c, values]) => {
        const raw = new Map<string, string[]>();
        const members: string[] = [];
        values.forEach((v, i) => {
          if (v === null) return;
          raw.set(`in_${i}`, v.cli);
          members.push(`"in_${i}":${v.json}`);
        });
        const cli = runCli(c.command, raw);
        const mcp = runJson(c.command, members);
        expect(cli.ok ? "ok" : cli.issues).toBe("ok");
        expect(mcp.ok ? "ok" : mcp.issues).toBe("ok");
        if (!cli.ok || !mcp.ok) return;
        expect(canonicalJson(cli.value.values as JsonValue)).toBe(
          canonicalJson(mcp.value.values as JsonValue),
        );
        expect(cli.value.explicit).toEqual(mcp.value.explicit);
      }),
      { numRuns: 400 },
    );
  });

  it("invalid inputs are rejected by both paths with the same issue code", () => {
    const scenario = genCommand.chain((c) =>
      fc.tuple(
        fc.constant(c),
        fc
          .nat(c.inputs.length - 1)
          .chain((i) => fc.tuple(fc.constant(i), fc.constantFrom(...c.inputs[i]!.faults))),
      ),
    );
    fc.assert(
      fc.property(scenario, ([c, [i, fault]]) => {
        const id = `in_${i}`;
        const cli = runCli(c.command, new Map([[id, fault.cli]]));
        const mcp = runJson(c.command, [`"${id}":${fault.json}`]);
        const codesAt = (r: typeof cli) =>
          r.ok ? [] : r.issues.filter((x) => x.path.split("/")[1] === id).map((x) => x.code);
        expect(codesAt(cli)).toContain(fault.code);
        expect(new Set(codesAt(cli))).toEqual(new Set(codesAt(mcp)));
      }),
      { numRuns: 400 },
    );
  });

  it("a missing required input is the same issue on both paths", () => {
    fc.assert(
      fc.property(
        genCommand.filter((c) => c.required.some(Boolean)),
        (c) => {
          const cli = runCli(c.command, new Map());
          const mcp = runJson(c.command, []);
          expect(cli).toEqual(mcp);
          expect(cli.ok).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });
});
