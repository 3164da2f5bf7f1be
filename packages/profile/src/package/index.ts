// Room package/ — a signed extension package: reading it (a directory, a
// .tgz or an npm tarball: _tar.ts, _npm-files.ts), checking it (imports,
// programs, manifest and signature: _imports.ts, _package.ts), storing it
// (_package.ts) and checking the stored copy on every use (_storecheck.ts,
// _stored-descriptor.ts); an author's check of a directory (_validate.ts)
// and development links (_devlink.ts). Imports model, routes, config and
// state-dir.
//
// Steps of an install:
//   1. readPackageSource    the files, within the owner's limits
//   2. verifyPackage        manifest, signature, descriptor, programs, imports
//   3. storePackage         into store/<digest>, durably
//   4. checkStoredPackage   every later use: the files still hash to the digest
//   5. storedDescriptor     the descriptor, parsed once per process

export type { LinkProblem, LinkRefresh } from "./_devlink.js";
export { linkedPackage, staleLinks } from "./_devlink.js";
export { checkImports } from "./_imports.js";
export {
  computeManifest,
  packPackage,
  publicKeyBase64,
  readLimits,
  readNpmArchive,
  readPackageSource,
  signPackage,
  storePackage,
  verifyPackage,
} from "./_package.js";
export { checkStoredPackage, corruptExtension } from "./_storecheck.js";
export { loadStoredPackage, storedDescriptor } from "./_stored-descriptor.js";
export type { PackageProblem, PackageReport } from "./_validate.js";
export { validatePackageDir } from "./_validate.js";
