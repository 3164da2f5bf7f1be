import { Validator } from "@cfworker/json-schema";
import {
  COMMAND_RESULT_MAX_BYTES,
  checkResultSchema,
  validateCommandResult,
} from "../dist/index.js";

// A realistic structured result at the limits: 340 records of five fields
// (text with escapes and non-ASCII), 2,043 members and elements in all with
// the wrapper, just under 128 KiB of UTF-8.
const schemaSource = {
  type: "object",
  properties: {
    items: {
      type: "array",
      maxItems: 400,
      items: {
        type: "object",
        properties: {
          id: { type: "integer", minimum: 0 },
          name: { type: "string", minLength: 1, maxLength: 64 },
          score: { type: "number", minimum: 0, maximum: 1 },
          status: { type: "string", enum: ["open", "closed", "merged"] },
          note: { type: "string", maxLength: 1_000 },
        },
        required: ["id", "name", "score", "status", "note"],
        additionalProperties: false,
      },
    },
  },
  required: ["items"],
  additionalProperties: false,
};

function result(noteLength) {
  const line = 'naïve café — "quoted" \\ path/to/file.ts:12 ';
  const items = [];
  for (let i = 0; i < 340; i++) {
    items.push({
      id: i,
      name: `record-${i}`,
      score: (i % 97) / 97,
      status: ["open", "closed", "merged"][i % 3],
      note: line.repeat(12).slice(0, noteLength),
    });
  }
  return { kind: "structured", data: { items } };
}

function members(v) {
  if (Array.isArray(v)) return v.reduce((n, x) => n + 1 + members(x), 0);
  if (v !== null && typeof v === "object") {
    return Object.values(v).reduce((n, x) => n + 1 + members(x), 0);
  }
  return 0;
}

function largest() {
  let lo = 0;
  let hi = 1_000;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (Buffer.byteLength(JSON.stringify(result(mid))) <= COMMAND_RESULT_MAX_BYTES) lo = mid;
    else hi = mid - 1;
  }
  return result(lo);
}

export default async function (suite) {
  const checked = checkResultSchema(schemaSource);
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  const declaration = { kind: "structured", schema: checked.value };
  const value = largest();
  const bytes = Buffer.from(JSON.stringify(value), "utf8");
  for (const input of [value, bytes]) {
    const r = validateCommandResult(declaration, input);
    if (!r.ok) throw new Error(JSON.stringify(r.issues.slice(0, 3)));
  }
  const oracle = new Validator(schemaSource, "2020-12", false);
  if (!oracle.validate(value.data).valid) throw new Error("oracle rejects the bench result");

  await suite.compare(
    `command-result: ${bytes.length} B structured result, ${members(value)} members+elements`,
    {
      baseline: [
        "Buffer→string + JSON.parse (no validation)",
        () => JSON.parse(bytes.toString("utf8")),
      ],
      cases: [
        ["validateCommandResult, parsed value", () => validateCommandResult(declaration, value)],
        [
          "validateCommandResult, bytes (strict parse + validate)",
          () => validateCommandResult(declaration, bytes),
        ],
        ["@cfworker/json-schema, parsed value", () => oracle.validate(value.data)],
      ],
      samples: 60,
      batch: 5,
    },
  );

  // Over-limit results: rejection stops at the first breach, so it does not
  // grow with the size of what was sent.
  const huge = Buffer.alloc(64 << 20, 0x20);
  const manyNodes = {
    kind: "structured",
    data: { items: Array.from({ length: 1_000_000 }, () => 0) },
  };
  const manyNodeBytes = Buffer.from(`{"kind":"structured","data":[${"0,".repeat(60_000)}0]}`);
  await suite.compare("command-result: over-limit result, early rejection", {
    baseline: ["JSON.parse of the 128 KiB result", () => JSON.parse(bytes.toString("utf8"))],
    cases: [
      ["64 MiB of bytes (size check)", () => validateCommandResult(declaration, huge)],
      [
        `${manyNodeBytes.length} B, 60,001 elements (bytes)`,
        () => validateCommandResult(declaration, manyNodeBytes),
      ],
      ["1,000,000 elements (parsed value)", () => validateCommandResult(declaration, manyNodes)],
    ],
    samples: 40,
    batch: 5,
  });
}
