import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "CLI_ERROR_CODES",
      "COMPLETION_SHELLS",
      "CliError",
      "EXIT_CODES",
      "OUTPUT_VERSION",
      "builtinCliSpec",
      "builtinEnd",
      "commandLine",
      "completionScript",
      "createCli",
      "linkAgain",
      "outputEnvelope",
      "printEnvelope",
      "resultText",
      "shellWord",
      "terminalBlock",
      "terminalLine",
      "terminalText",
    ]
  `);
});
