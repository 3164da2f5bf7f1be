import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "COMMAND_RESULT_ISSUE_CODES",
      "COMMAND_RESULT_LIMITS",
      "COMMAND_RESULT_MAX_BYTES",
      "RESULT_MAX_DEPTH",
      "RESULT_MAX_NODES",
      "RESULT_SCHEMA_MAX_BYTES",
      "RESULT_VALIDATION_MAX_MS",
      "checkResultSchema",
      "validateCommandResult",
    ]
  `);
});
