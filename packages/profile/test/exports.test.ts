import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "CONFIG_ISSUE_CODES",
      "CONFIG_MAX_BYTES",
      "CURSOR_MAX_LENGTH",
      "DEFAULT_OWNER_LIMITS",
      "DESCRIPTOR_PATH",
      "PACKAGE_MAX_BYTES",
      "PACKAGE_MAX_COMPRESSED_BYTES",
      "PACKAGE_MAX_FILES",
      "PACKAGE_MAX_FILE_BYTES",
      "PACKAGE_MAX_PATH_BYTES",
      "PAGE_MAX_BYTES",
      "PAGE_MAX_TOOLS",
      "PRESET_RESOURCE_DEFAULTS",
      "PROFILE_ERROR_CODES",
      "ProfileError",
      "RESERVED_CLI_WORDS",
      "REVISION_MAX_BYTES",
      "ROUTES_MAX_BYTES",
      "SIGNATURE_MAX_BYTES",
      "SIGNATURE_PATH",
      "StateDirectory",
      "TOOL_DESCRIPTION_MAX_LENGTH",
      "checkStoredPackage",
      "cliRoutes",
      "compareVersions",
      "computeManifest",
      "corruptExtension",
      "findTemporaryDebris",
      "holdNamedLock",
      "inNamespace",
      "listTools",
      "namespacesOf",
      "packPackage",
      "parseOwnerConfig",
      "presetNamed",
      "publicKeyBase64",
      "readActiveRoutes",
      "removeTemporaryDebris",
      "resolveStateDir",
      "resolveTool",
      "signPackage",
      "stateLockName",
      "toolName",
      "validateOwnerConfig",
    ]
  `);
});
