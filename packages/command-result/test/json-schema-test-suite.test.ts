import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkResultSchema } from "../src/index.js";
import { validateUntimed } from "./_untimed.js";

const dir = fileURLToPath(
  new URL("../../../fixtures/external/JSON-Schema-Test-Suite/draft2020-12/", import.meta.url),
);
const DIALECT = "https://json-schema.org/draft/2020-12/schema";

interface Group {
  description: string;
  schema: unknown;
  tests: { description: string; data: unknown; valid: boolean }[];
}

// The suite names its dialect with a root "$schema" in every case; that
// declaration is the suite's framing, not part of the schema under test, so
// it is removed before the subset check (any other "$schema" stays and is rejected).
function withoutDialect(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const { $schema, ...rest } = schema as Record<string, unknown>;
  return $schema === DIALECT ? rest : schema;
}

const cases: [string, unknown, unknown, boolean][] = [];
let groups = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
  for (const group of JSON.parse(readFileSync(dir + file, "utf8")) as Group[]) {
    groups++;
    const checked = checkResultSchema(withoutDialect(group.schema));
    if (!checked.ok) continue;
    for (const t of group.tests) {
      cases.push([
        `${file}: ${group.description}: ${t.description}`,
        checked.value,
        t.data,
        t.valid,
      ]);
    }
  }
}

describe("JSON-Schema-Test-Suite draft2020-12, cases inside the subset", () => {
  it("loads the corpus and keeps a meaningful number of in-subset cases", () => {
    expect(groups).toBeGreaterThan(300);
    expect(cases.length).toBeGreaterThanOrEqual(45);
  });

  it.each(cases)("%s", (_name, schema, data, valid) => {
    const r = validateUntimed(
      { kind: "structured", schema: schema as never },
      { kind: "structured", data },
    );
    expect(r.ok).toBe(valid);
  });
});
