// Room config/ — the owner configuration: the checker that reads it and
// collects every issue with its pointer (_config-checker.ts), the
// configuration's own members, presets and limits (_config.ts), its MCP
// endpoints and their HTTP side (_endpoints.ts, _endpoint-http.ts), and the
// trust rules it sets for publishers (_trust.ts). Imports the model only.
//
// Steps:
//   1. parseOwnerConfig       strict JSON, bounded
//   2. validateOwnerConfig    every member, with OwnerConfigChecker
//   3. checkEndpoints         each MCP endpoint and its HTTP side
//   4. effectiveLimits / presetNamed / mcpEndpoint    what the rest reads of it
//   5. the trust rules (checkVersionChange, checkNamespaces, …) a publication applies

export {
  effectiveLimits,
  isJournalDir,
  parseOwnerConfig,
  presetNamed,
  validateOwnerConfig,
} from "./_config.js";
export { httpListen, parseListen } from "./_endpoint-http.js";
export { mcpEndpoint, profileNaming, revisionNamings, sameNaming } from "./_endpoints.js";
export {
  checkCliOwnership,
  checkNamespaces,
  checkSource,
  checkVersionChange,
  compareVersions,
  namespacesOf,
  RESERVED_CLI_WORDS,
  routingOwner,
} from "./_trust.js";
