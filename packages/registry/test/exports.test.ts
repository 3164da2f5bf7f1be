import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "FETCH_IDLE_MAX_MS",
      "FETCH_MAX_REDIRECTS",
      "FETCH_TOTAL_MAX_MS",
      "PACKUMENT_MAX_BYTES",
      "REGISTRY_ERROR_CODES",
      "RegistryError",
      "downloadProgress",
      "downloadTarball",
      "fetchPackument",
      "integrityOf",
      "npmConfig",
      "outdatedOf",
      "pickVersion",
      "registryOf",
      "registrySpec",
      "resolutionOf",
      "resolvePackage",
      "upgradeSpec",
    ]
  `);
});
