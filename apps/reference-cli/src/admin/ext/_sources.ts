// What `ext install` installs from each word it is given: an existing
// folder or .tgz file as it is, otherwise an npm package spec fetched from
// the registry npm's configuration names for it. The registry is transport:
// its tarball becomes an install change checked exactly as a file is.

import { promises } from "node:fs";
import type { BuiltinContext } from "@rukh/cli";
import type { ExtensionOrigin, OwnerConfig, ProfileChange } from "@rukh/profile";
import type { NpmOptions, RegistrySpec, Resolution } from "@rukh/registry";

/** The registry library, loaded only when a registry is asked: other commands never load it. */
export type Registry = typeof import("@rukh/registry");
export const loadRegistry = (): Promise<Registry> => import("@rukh/registry");

/** An install change, less what the publication adds (the preset, leave to downgrade). */
export type InstallSource = Pick<
  Extract<ProfileChange, { op: "install" }>,
  "source" | "archive" | "origin"
>;

/** The most compressed bytes a package may have under `config`'s limits. */
export function maxArchiveBytes(config: OwnerConfig, ceiling: number): number {
  return Math.min(ceiling, config.limits?.maxPackageBytes ?? ceiling);
}

/** npm's configuration as `npm` would read it where the command runs. */
export function npmOptions(registry: Registry, ctx: BuiltinContext): Promise<NpmOptions> {
  return registry.npmConfig({ cwd: process.cwd(), env: ctx.env });
}

/**
 * The tarball of a resolved version as an install change, with its origin.
 * A download in progress shows on a terminal's stderr only.
 */
export async function fetched(
  registry: Registry,
  ctx: BuiltinContext,
  step: {
    readonly npm: NpmOptions;
    readonly resolution: Resolution;
    readonly spec: string;
    readonly maxBytes: number;
  },
): Promise<InstallSource> {
  const r = step.resolution;
  const label = `${r.name}@${r.version}`;
  const progress = registry.downloadProgress(ctx.stderr, label);
  let archive: Buffer;
  try {
    archive = await registry.downloadTarball(r, step.npm, {
      maxBytes: step.maxBytes,
      onProgress: progress.onProgress,
    });
  } finally {
    progress.done();
  }
  const origin: ExtensionOrigin = {
    registry: r.registry,
    name: r.name,
    version: r.version,
    integrity: r.integrity,
    spec: step.spec,
  };
  return { source: `${label} from registry ${r.registry}`, archive, origin };
}

async function isPath(word: string): Promise<boolean> {
  try {
    await promises.lstat(word);
    return true;
  } catch {
    return false;
  }
}

/**
 * Each word as an install source: an existing path wins; a word that is no
 * path but an npm package spec is resolved and fetched; anything else is
 * left as a path, for the installer to say it cannot be read.
 */
export async function installSources(
  ctx: BuiltinContext,
  words: readonly string[],
  config: OwnerConfig,
  ceiling: number,
): Promise<InstallSource[]> {
  const out: InstallSource[] = [];
  let registry: Registry | undefined;
  let npm: NpmOptions | undefined;
  for (const word of words) {
    if (await isPath(word)) {
      out.push({ source: word });
      continue;
    }
    registry ??= await loadRegistry();
    const spec: RegistrySpec | undefined = registry.registrySpec(word);
    if (spec === undefined) {
      out.push({ source: word });
      continue;
    }
    npm ??= await npmOptions(registry, ctx);
    const resolution = await registry.resolvePackage(spec, npm);
    out.push(
      await fetched(registry, ctx, {
        npm,
        resolution,
        spec: spec.wanted,
        maxBytes: maxArchiveBytes(config, ceiling),
      }),
    );
  }
  return out;
}
