import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { parseDescriptor } from "../src/index.js";

const dir = fileURLToPath(new URL("../../../fixtures/descriptors/", import.meta.url));
const schemaFile = fileURLToPath(
  new URL("../../../docs/schemas/rukh.extension.schema.json", import.meta.url),
);
const valid = readdirSync(`${dir}valid`).filter((f) => f.endsWith(".json"));
const expected: Record<string, { code: string; path: string; schemaCatches?: false }> = JSON.parse(
  readFileSync(`${dir}invalid/expected.json`, "utf8"),
);
const invalid = Object.keys(expected);
const schema = new Validator(JSON.parse(readFileSync(schemaFile, "utf8")), "2020-12", false);

function schemaAccepts(bytes: Buffer): boolean {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return false;
  }
  return schema.validate(value).valid;
}

describe("descriptor fixtures", () => {
  it("has at least 15 valid and 40 invalid fixtures, each invalid one with an expectation", () => {
    expect(valid.length).toBeGreaterThanOrEqual(15);
    expect(invalid.length).toBeGreaterThanOrEqual(40);
    const files = readdirSync(`${dir}invalid`).filter((f) => f !== "expected.json");
    expect(files.map((f) => f.replace(/\.json$/, "")).sort()).toEqual([...invalid].sort());
  });

  it.each(valid)("accepts valid/%s", (file) => {
    const r = parseDescriptor(readFileSync(`${dir}valid/${file}`));
    expect(r.ok ? "ok" : r.issues).toBe("ok");
  });

  it.each(invalid)("rejects invalid/%s with its code and path", (name) => {
    const r = parseDescriptor(readFileSync(`${dir}invalid/${name}.json`));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const want = expected[name]!;
    expect(r.issues.map((i) => ({ code: i.code, path: i.path }))).toContainEqual({
      code: want.code,
      path: want.path,
    });
    for (const i of r.issues)
      expect(i.message).toMatch(
        /expected|required|not supported|belongs|exceeds|already|twice|fails/,
      );
  });
});

describe("example extensions (fixtures/extensions)", () => {
  const examples = fileURLToPath(new URL("../../../fixtures/extensions/", import.meta.url));
  const names = readdirSync(examples, { withFileTypes: true }).filter((d) => d.isDirectory());
  it("has the examples", () => expect(names.length).toBeGreaterThanOrEqual(3));
  it.each(names.map((d) => d.name))("%s has a valid descriptor the schema accepts too", (name) => {
    const bytes = readFileSync(`${examples}${name}/rukh-extension.json`);
    const r = parseDescriptor(bytes);
    expect(r.ok ? "ok" : r.issues).toBe("ok");
    expect(schemaAccepts(bytes)).toBe(true);
  });
});

describe("docs/schemas/rukh.extension.schema.json agrees with the parser", () => {
  it.each(valid)("schema accepts valid/%s", (file) => {
    expect(schemaAccepts(readFileSync(`${dir}valid/${file}`))).toBe(true);
  });

  it.each(invalid.filter((n) => expected[n]!.schemaCatches !== false))(
    "schema rejects invalid/%s",
    (name) => {
      expect(schemaAccepts(readFileSync(`${dir}invalid/${name}.json`))).toBe(false);
    },
  );

  // JSON Schema cannot see these (uniqueness across objects, route tables,
  // positional order, defaults against constraints, duplicate JSON keys); the
  // list is explicit so that a rule the schema could express is not left out silently.
  it("leaves only cross-object rules to the parser", () => {
    const parserOnly = invalid
      .filter((n) => expected[n]!.schemaCatches === false)
      .map((n) => expected[n]!.code);
    expect(new Set(parserOnly)).toEqual(
      new Set([
        "duplicate_id",
        "route_conflict",
        "flag_conflict",
        "flag_drift",
        "reserved_flag",
        "positional_conflict",
        "invalid_default",
        "invalid_enum",
        "invalid_bounds",
        "invalid_value",
        "control_character",
        "invisible_character",
        "invalid_json",
      ]),
    );
  });
});
