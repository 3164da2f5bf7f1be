// @rukh/profile/package: the signed package format, for an extension
// author's tooling and whoever inspects a package byte by byte — its
// manifest, its signature, the paths the format fixes and the limits every
// install enforces. Signing, packing and checking a package directory are in
// the main entry, beside the state directory that installs it. Any export
// added here becomes public API.

export type { ManifestFile, PackageManifest, PackageSignature } from "./model/index.js";
export {
  DESCRIPTOR_PATH,
  PACKAGE_MAX_BYTES,
  PACKAGE_MAX_FILE_BYTES,
  PACKAGE_MAX_FILES,
  PACKAGE_MAX_PATH_BYTES,
  SIGNATURE_MAX_BYTES,
  SIGNATURE_PATH,
} from "./model/index.js";
export { computeManifest } from "./package/index.js";
