import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseJson } from "../src/index.js";

const suite = fileURLToPath(
  new URL("../../../fixtures/external/JSONTestSuite/test_parsing/", import.meta.url),
);
const policyDoc = fileURLToPath(new URL("../../../docs/json-policy.md", import.meta.url));
const files = readdirSync(suite).filter((f) => f.endsWith(".json"));
const read = (f: string) => readFileSync(suite + f); // bytes: some cases are invalid UTF-8 on purpose

const rejectedByPolicy = new Set([
  "y_object_duplicated_key.json",
  "y_object_duplicated_key_and_value.json",
]);

// Parses the decision table of docs/json-policy.md so the document and the reader cannot drift.
function documentedDecisions(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of readFileSync(policyDoc, "utf8").split("\n")) {
    const m = /^\|\s*`(i_[^`]+)`\s*\|\s*(accept|reject `[a-z_0-9]+`)\s*\|/.exec(line);
    if (m) rows.set(`${m[1]}.json`, m[2]!.replace(/`/g, ""));
  }
  return rows;
}

describe("nst/JSONTestSuite", () => {
  it("has the full corpus", () => {
    expect(files.length).toBe(318);
  });

  it.each(files.filter((f) => f.startsWith("y_")))("accepts %s", (file) => {
    const r = parseJson(read(file));
    if (rejectedByPolicy.has(file)) {
      expect(r.ok ? "accepted" : r.error.code).toBe("duplicate_key");
    } else {
      expect(r.ok ? "accepted" : `${r.error.code}: ${r.error.message}`).toBe("accepted");
    }
  });

  it.each(files.filter((f) => f.startsWith("n_")))("rejects %s", (file) => {
    const r = parseJson(read(file));
    expect(r.ok).toBe(false);
  });

  const decisions = documentedDecisions();
  it("documents a decision for every i_ case", () => {
    expect([...decisions.keys()].sort()).toEqual(files.filter((f) => f.startsWith("i_")).sort());
  });

  it.each([...decisions])("decides %s as documented: %s", (file, decision) => {
    const r = parseJson(read(file));
    expect(r.ok ? "accept" : `reject ${r.error.code}`).toBe(decision);
  });
});
