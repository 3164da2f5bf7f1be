import { expect, it } from "vitest";

// The built entry is the test kit's surface; a new name here shows up in review.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "FIXTURE_AGENT_CONSENT",
      "FIXTURE_KEY",
      "FIXTURE_PUB",
      "FIXTURE_PUBLISHER",
      "FORGED_TEXT",
      "bareIpcInvocation",
      "commandsDescriptor",
      "exposedState",
      "fillFileSystem",
      "fixtureOwnerConfig",
      "fixturePreset",
      "fixtureState",
      "forgedLines",
      "freePort",
      "hostileEnumInput",
      "int",
      "ipcRuntimeUrl",
      "lineRpc",
      "machine",
      "managed",
      "mountReadOnly",
      "nodeTestPasses",
      "processesWith",
      "registryCaEnv",
      "removeDir",
      "str",
      "tempDir",
      "writeFixturePackage",
      "writeHiFixturePackage",
      "writeNpmFixturePackage",
    ]
  `);
});
