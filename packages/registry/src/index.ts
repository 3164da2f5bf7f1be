// @rukh/registry: extension packages from an npm registry. It resolves and
// fetches; it trusts nothing it fetched — the installer checks the tarball
// exactly as it checks a file.
export { type DownloadOptions, downloadTarball } from "./_download.js";
export { REGISTRY_ERROR_CODES, RegistryError, type RegistryErrorCode } from "./_errors.js";
export {
  FETCH_IDLE_MAX_MS,
  FETCH_MAX_REDIRECTS,
  FETCH_TOTAL_MAX_MS,
  PACKUMENT_MAX_BYTES,
} from "./_limits.js";
export { type NpmConfigSources, type NpmOptions, npmConfig } from "./_npm-config.js";
export { type DownloadProgress, downloadProgress, type ProgressStream } from "./_progress.js";
export {
  fetchPackument,
  integrityOf,
  type Resolution,
  registryOf,
  resolutionOf,
  resolvePackage,
} from "./_resolve.js";
export { type RegistrySpec, registrySpec } from "./_spec.js";
export {
  type OutdatedVersions,
  outdatedOf,
  type Packument,
  type PackumentVersion,
  pickVersion,
  upgradeSpec,
} from "./_versions.js";
