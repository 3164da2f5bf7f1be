import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { cliSpec, mcpInputSchema, parseDescriptor, validateDescriptor } from "../src/index.js";

const file = fileURLToPath(
  new URL("../../../fixtures/descriptors/valid/v2-full.json", import.meta.url),
);
const parsed = parseDescriptor(readFileSync(file));
if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
const count = parsed.value.commands[0]!;

describe("mcpInputSchema", () => {
  const schema = mcpInputSchema(count);
  it("is a closed object with one property per input id, naming no dialect", () => {
    expect(schema.type).toBe("object");
    expect(schema).not.toHaveProperty("$schema");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual(count.inputs.map((i) => i.id));
    expect(schema.required).toEqual(["paths"]);
  });

  it("carries types, bounds, enums, defaults, maxItems and the decimal pattern", () => {
    const p = schema.properties as Record<string, Record<string, unknown>>;
    expect(p.paths).toMatchObject({
      type: "array",
      items: { type: "string", minLength: 1 },
      minItems: 1,
      maxItems: 16,
    });
    expect(p.max_depth).toMatchObject({ type: "integer", minimum: 0, maximum: 10, default: 2 });
    expect(p.budget).toMatchObject({
      type: "string",
      pattern: "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$",
      default: "12.50",
    });
    expect(p.budget!.description).toContain("at most 1000.00");
    expect(p.mode).toMatchObject({ type: "string", enum: ["fast", "exact"], default: "fast" });
    expect(p.follow_links).toMatchObject({ type: "boolean", default: false });
  });

  it("joins an input's summary and its decimal bounds as two sentences", () => {
    const described = (summary: string) => {
      const v = validateDescriptor({
        format: "rukh.extension/2",
        id: "fx.money",
        version: "1.0.0",
        publisher: "fx",
        commands: [
          {
            id: "sum",
            path: ["sum"],
            summary: "Sum",
            inputs: [{ id: "budget", type: "decimal", minimum: "0", maximum: "1000000", summary }],
            execute: {
              mapping: "managed",
              program: "bin/x.mjs",
              runtime: "node",
              result: { kind: "text" },
            },
            machine: { eligible: true },
          },
        ],
      } as never);
      if (!v.ok) throw new Error(JSON.stringify(v.issues));
      const p = mcpInputSchema(v.value.commands[0]!).properties as Record<
        string,
        { description: string }
      >;
      return p.budget!.description;
    };
    expect(described("Budget the sum is compared with")).toBe(
      "Budget the sum is compared with. Exact decimal string, at least 0 and at most 1000000.",
    );
    // A summary that already ends a sentence gets no second stop.
    expect(described("The budget.")).toBe(
      "The budget. Exact decimal string, at least 0 and at most 1000000.",
    );
    expect(described("Within budget?")).toBe(
      "Within budget? Exact decimal string, at least 0 and at most 1000000.",
    );
  });

  it("is a valid 2020-12 schema that a client can check arguments with", () => {
    const v = new Validator(schema as object, "2020-12");
    expect(v.validate({ paths: ["a"], budget: "1.5", mode: "exact" }).valid).toBe(true);
    expect(v.validate({ paths: ["a"], definitely_not_an_option: 1 }).valid).toBe(false);
    expect(v.validate({ paths: ["a"], budget: 1.5 }).valid).toBe(false);
    expect(v.validate({}).valid).toBe(false);
  });
});

describe("cliSpec", () => {
  it("spells flags in kebab-case of the same words as the ids", () => {
    const spec = cliSpec(count);
    expect(spec.flags.map((f) => [f.id, f.flag, f.short])).toEqual([
      ["max_depth", "max-depth", "d"],
      ["ratio", "ratio", undefined],
      ["budget", "budget", undefined],
      ["follow_links", "follow-links", undefined],
      ["mode", "mode", undefined],
    ]);
    expect(spec.positionals.map((p) => [p.id, p.positional, p.list])).toEqual([["paths", 0, true]]);
    expect(spec.flags.find((f) => f.id === "mode")!.placeholder).toBe("<fast|exact>");
    expect(spec.aliases).toEqual([["wc"]]);
  });
});
