// Development links (`ext link`): an author's unsigned package directory,
// stored like any package so that a call runs an immutable, digest-checked
// copy, and linked again whenever the directory no longer matches that copy.

import { lstat, realpath } from "node:fs/promises";
import { effectiveLimits } from "../config/index.js";
import {
  ioError,
  type OwnerConfig,
  ProfileError,
  type ProfileRevision,
  type VerifiedPackage,
} from "../model/index.js";
import { pathProblems } from "../routes/index.js";
import { checkImports } from "./_imports.js";
import { devPackage, readLimits, readPackageDir } from "./_package.js";

/** A linked package: checked like an install except for its signature, and where it came from. */
export interface LinkedPackage extends VerifiedPackage {
  /** The real path of the directory. */
  readonly source: string;
}

/** Reads and checks the package directory `source` for a link. */
export async function linkedPackage(source: string, config: OwnerConfig): Promise<LinkedPackage> {
  let real: string;
  let isDir: boolean;
  try {
    real = await realpath(source);
    isDir = (await lstat(real)).isDirectory();
  } catch (cause) {
    throw ioError(`cannot read package directory "${source}"`, cause);
  }
  if (!isDir)
    throw new ProfileError(
      "invalid_link",
      `"${source}" is not a directory; a development link runs a package from its source directory (install a .tgz with ext install)`,
    );
  // Only your own folders: another user who can change one would choose what runs as you.
  const uid = process.geteuid?.() ?? 0;
  const unsafe = pathProblems(real, uid);
  if (unsafe.length > 0)
    throw new ProfileError(
      "invalid_link",
      `${unsafe[0]!.path} ${unsafe[0]!.problem}: another user could change what runs as you; only your own folders are linked (fix: $ ${unsafe[0]!.fix})`,
    );
  const files = await readPackageDir(real, readLimits(effectiveLimits(config)), uid);
  const pkg = devPackage(files);
  await checkImports(pkg.descriptor, pkg.files);
  return { ...pkg, source: real };
}

/** A development link that could not be read again: it keeps running its last linked copy. */
export interface LinkProblem {
  /** The extension id it is linked as. */
  readonly id: string;
  /** Its source directory. */
  readonly source: string;
  /** Why it was not linked again. */
  readonly message: string;
}

/** What `StateDirectory.refreshLinks` did. */
export interface LinkRefresh {
  /** The links linked again. */
  readonly refreshed: readonly string[];
  /** The links whose directories changed but were not linked again (`publish: false`). */
  readonly changed: readonly string[];
  /** The links that keep their last copy, and why. */
  readonly problems: readonly LinkProblem[];
  /** The active revision afterwards (`null`: nothing is published). */
  readonly revisionId: string | null;
}

/**
 * The links of `revision` whose directories changed since they were linked,
 * each read and checked again (`stale`), and those that can no longer be
 * (`problems`).
 */
export async function staleLinks(
  revision: ProfileRevision,
): Promise<{ stale: LinkedPackage[]; problems: LinkProblem[] }> {
  const stale: LinkedPackage[] = [];
  const problems: LinkProblem[] = [];
  for (const e of revision.extensions) {
    if (e.dev === undefined || !e.enabled) continue;
    try {
      const pkg = await linkedPackage(e.dev, revision.config);
      if (pkg.descriptor.id !== e.id)
        throw new ProfileError(
          "invalid_link",
          `its descriptor now declares "${pkg.descriptor.id}"; unlink ${e.id} and link the directory again`,
        );
      if (pkg.digest !== e.digest) stale.push(pkg);
    } catch (error) {
      problems.push({ id: e.id, source: e.dev, message: (error as Error).message });
    }
  }
  return { stale, problems };
}
