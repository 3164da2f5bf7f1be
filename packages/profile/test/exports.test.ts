import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

// The built entries are the public surface; a new name in one is a new public API.
const names = async (entry: string) => Object.keys(await import(`../dist/${entry}.js`)).sort();

it("the main entry exports exactly these names", async () => {
  expect(await names("index")).toMatchInlineSnapshot(`
    [
      "CONFIG_MAX_BYTES",
      "DEFAULT_ENDPOINT",
      "DEFAULT_ENDPOINT_PRESET",
      "PACKAGE_MAX_COMPRESSED_BYTES",
      "PRESET_RESOURCE_DEFAULTS",
      "PROFILE_ERROR_CODES",
      "ProfileError",
      "STRICT_UIDS_DEFAULT",
      "StateDirectory",
      "TOOL_NAME_MAX_LENGTH",
      "brandStateOptions",
      "callRefusal",
      "checkStoredPackage",
      "cliRoutes",
      "compareVersions",
      "corruptExtension",
      "effectiveTaskSupport",
      "findTemporaryDebris",
      "holdAbstractLock",
      "journalDirVariable",
      "listTools",
      "listedTool",
      "mcpEndpoint",
      "namespacesOf",
      "packPackage",
      "placesLine",
      "presetNamed",
      "profileNaming",
      "publicKeyBase64",
      "readActiveRoutes",
      "readFileAtMost",
      "removeTemporaryDebris",
      "resolveStateDir",
      "resolveTool",
      "signPackage",
      "stateDirMessage",
      "stateDirProblems",
      "stateDirVariable",
      "stateLocks",
      "storedDescriptor",
      "validatePackageDir",
      "visibleTools",
    ]
  `);
});

it("the route-cache entry exports exactly these names", async () => {
  expect(await names("route-cache")).toMatchInlineSnapshot(`
    [
      "FOREIGN_STATE_VARIABLES",
      "REVISION_ID",
      "REVISION_MAX_BYTES",
      "ROUTES_MAX_BYTES",
      "readFileAtMost",
      "readRouteCache",
      "resolveStateDir",
      "stateDirMessage",
      "stateDirProblems",
      "stateDirVariable",
    ]
  `);
});

it("the package entry exports exactly these names", async () => {
  expect(await names("package")).toMatchInlineSnapshot(`
    [
      "DESCRIPTOR_PATH",
      "PACKAGE_MAX_BYTES",
      "PACKAGE_MAX_FILES",
      "PACKAGE_MAX_FILE_BYTES",
      "PACKAGE_MAX_PATH_BYTES",
      "SIGNATURE_MAX_BYTES",
      "SIGNATURE_PATH",
      "computeManifest",
    ]
  `);
});

it("the config entry exports exactly these names", async () => {
  expect(await names("config")).toMatchInlineSnapshot(`
    [
      "CONFIG_ISSUE_CODES",
      "DEFAULT_OWNER_LIMITS",
      "RESERVED_CLI_WORDS",
      "httpListen",
      "parseListen",
      "parseOwnerConfig",
      "validateOwnerConfig",
    ]
  `);
});

it("the projection entry exports exactly these names", async () => {
  expect(await names("projection")).toMatchInlineSnapshot(`
    [
      "CURSOR_MAX_LENGTH",
      "MCP_INSTRUCTIONS_MAX_LENGTH",
      "MCP_TRANSPORT_LIMITS",
      "OUTCOME_KINDS",
      "TOOL_DESCRIPTION_MAX_LENGTH",
      "clientFitName",
      "connectAnswerBytes",
      "envelopeSchema",
      "listedOutputSchema",
      "outcomeDiagnostic",
      "outcomeEnvelope",
      "toolName",
    ]
  `);
});

// What most users need, and no more: types count too, so the source is read.
it("the main entry names at most 80 things, types included", () => {
  const text = readFileSync(new URL("../src/index.ts", import.meta.url), "utf8");
  const listed = [...text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) =>
    m[1]!
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .split(",")
      .map((n) => n.trim())
      .filter((n) => n !== ""),
  );
  expect(listed.length).toBeLessThanOrEqual(80);
});
