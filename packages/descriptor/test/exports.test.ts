import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "COMMAND_HINTS",
      "COMMAND_ID_PATTERN",
      "DECIMAL_PATTERN",
      "DESCRIPTOR_FORMATS",
      "DESCRIPTOR_ISSUE_CODES",
      "DESCRIPTOR_LIMITS",
      "DESCRIPTOR_MAX_BYTES",
      "EXTENSION_ID_PATTERN",
      "INPUT_ISSUE_CODES",
      "PUBLISHER_ID_PATTERN",
      "REGISTERED_FEATURES",
      "REQUEST_NAME_PATTERN",
      "RESERVED_FLAGS",
      "RESERVED_SHORT_FLAGS",
      "SCALAR_TYPES",
      "TASK_SUPPORT",
      "cliSpec",
      "compareDecimal",
      "decodeCliInputs",
      "decodeJsonInputs",
      "defaultFlag",
      "descriptorTypes",
      "mcpInputSchema",
      "parseDescriptor",
      "validateCommandDeclarations",
      "validateDescriptor",
      "validateInputs",
    ]
  `);
});
