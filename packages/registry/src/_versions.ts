// What a package's document offers a spec: pure, so each rule is a row of
// a table test. npm's own picker chooses, as `npm install` would.
import pick from "npm-pick-manifest";
import { RegistryError } from "./_errors.js";
import type { RegistrySpec } from "./_spec.js";

/** The part of a registry's package document (packument) that choosing a version reads. */
export interface Packument {
  readonly name: string;
  readonly "dist-tags": Readonly<Record<string, string>>;
  readonly versions: Readonly<Record<string, PackumentVersion>>;
}

/** One version of a {@link Packument}. */
export interface PackumentVersion {
  readonly version: string;
  readonly deprecated?: string;
  readonly dist: {
    readonly tarball: string;
    readonly integrity?: string;
    readonly shasum?: string;
  };
}

/**
 * The version a spec picks, as `npm install` would: a dist-tag's version, the
 * highest version in a range, or the one version named (`no_matching_version`
 * when there is none).
 *
 * @example
 * pickVersion(doc, { name: "@jane/hello", kind: "range", wanted: "^1.2", raw: "@jane/hello@^1.2" }); // "1.4.0"
 */
export function pickVersion(
  packument: Packument,
  spec: Pick<RegistrySpec, "name" | "kind" | "wanted">,
  registry: string,
): string {
  try {
    return pick(packument, spec.wanted).version;
  } catch (cause) {
    const tags = Object.keys(packument["dist-tags"]).sort().join(", ");
    throw new RegistryError(
      "no_matching_version",
      `registry ${registry} has no version of ${spec.name} matching ${spec.kind === "tag" ? `the dist-tag "${spec.wanted}"` : `"${spec.wanted}"`} (dist-tags: ${tags || "none"})`,
      { cause },
    );
  }
}

/** What {@link outdatedOf} reports of one package: as `npm outdated` does. */
export interface OutdatedVersions {
  /** The installed version. */
  readonly current: string;
  /**
   * The version the spec it was installed with picks today: its dist-tag's,
   * the highest in its range, or for one exact version the highest of the
   * same major (`^version`).
   */
  readonly wanted: string;
  /** The version the `latest` dist-tag names. */
  readonly latest: string;
}

/**
 * The spec an upgrade follows for a package installed with `spec`: the same
 * tag or range, and for an exact version the same major.
 *
 * @example
 * upgradeSpec({ name: "@jane/hello", kind: "version", wanted: "1.2.0" }); // { …, kind: "range", wanted: "^1.2.0" }
 */
export function upgradeSpec(
  spec: Pick<RegistrySpec, "name" | "kind" | "wanted">,
): Pick<RegistrySpec, "name" | "kind" | "wanted"> {
  return spec.kind === "version" ? { ...spec, kind: "range", wanted: `^${spec.wanted}` } : spec;
}

/**
 * Installed, wanted and latest versions of a package installed at `current`
 * with `spec`.
 *
 * @example
 * outdatedOf(doc, { name: "@jane/hello", kind: "tag", wanted: "latest" }, "1.0.0", reg); // { current: "1.0.0", wanted: "1.1.0", latest: "1.1.0" }
 */
export function outdatedOf(
  packument: Packument,
  spec: Pick<RegistrySpec, "name" | "kind" | "wanted">,
  current: string,
  registry: string,
): OutdatedVersions {
  const latest = packument["dist-tags"].latest;
  if (latest === undefined)
    throw new RegistryError(
      "registry_invalid",
      `registry ${registry} names no latest version of ${spec.name}`,
    );
  return { current, wanted: pickVersion(packument, upgradeSpec(spec), registry), latest };
}

/** A version's SRI integrity: the registry's, else its SHA-1 shasum in SRI form. */
export function integrityOf(version: PackumentVersion): string | undefined {
  if (version.dist.integrity !== undefined) return version.dist.integrity;
  if (version.dist.shasum !== undefined && /^[0-9a-f]{40}$/.test(version.dist.shasum))
    return `sha1-${Buffer.from(version.dist.shasum, "hex").toString("base64")}`;
  return undefined;
}
