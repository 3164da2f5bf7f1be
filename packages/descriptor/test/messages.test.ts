import { describe, expect, it } from "vitest";
import { parseDescriptor } from "../src/index.js";

// What an author sees for the usual mistakes: where, and what was meant.
const base = {
  format: "rukh.extension/2",
  id: "acme.hello",
  version: "1.0.0",
  publisher: "acme",
  commands: [],
};

describe("descriptor messages for authors", () => {
  it("places a JSON syntax error at its line and column", () => {
    const text = '{\n  "format": "rukh.extension/2",\n  "id": "acme.hello",,\n}';
    const r = parseDescriptor(text);
    expect(r.ok).toBe(false);
    const issue = r.ok ? undefined : r.issues[0];
    expect(issue?.code).toBe("invalid_json");
    expect(issue?.message).toMatch(/^line 3:22 \(byte \d+\): /);
    expect(issue?.message).not.toMatch(/at byte/);
  });

  it("suggests the field a typo meant", () => {
    const r = parseDescriptor(JSON.stringify({ ...base, sumary: "Hello" }));
    expect(r.ok ? [] : r.issues).toEqual([
      expect.objectContaining({
        path: "/sumary",
        code: "unknown_field",
        message: expect.stringContaining('unknown field "sumary"; did you mean summary?'),
      }),
    ]);
    const far = parseDescriptor(JSON.stringify({ ...base, colour: "red" }));
    expect(far.ok ? "" : far.issues[0]!.message).not.toContain("did you mean");
  });

  it("accepts a $schema reference for editors, as a string only, and leaves it out of the descriptor", () => {
    const r = parseDescriptor(
      JSON.stringify({ $schema: "https://rukh.dev/schemas/rukh.extension.schema.json", ...base }),
    );
    expect(r.ok).toBe(true);
    expect(r.ok && Object.hasOwn(r.value, "$schema")).toBe(false);
    const bad = parseDescriptor(JSON.stringify({ $schema: 7, ...base }));
    expect(bad.ok ? [] : bad.issues).toEqual([
      expect.objectContaining({ path: "/$schema", code: "invalid_type" }),
    ]);
  });
});
