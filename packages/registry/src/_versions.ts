// What a package's document offers a spec: pure, so each rule is a row of
// a table test. npm's own picker chooses, as `npm install` would.
import pick from "npm-pick-manifest";
import semver from "semver";
import { RegistryError } from "./_errors.js";
import { quoted } from "./_redact.js";
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
  if (spec.kind === "tag" && Object.hasOwn(packument["dist-tags"], spec.wanted))
    return taggedVersion(packument, spec.wanted, spec.name, registry);
  // npm's picker sees only the dist-tags that name a listed version: another
  // one (`latest` a number, a range, a line) is never followed.
  const usable = Object.entries(packument["dist-tags"]).filter(([, v]) =>
    listedVersion(packument, v),
  );
  let version: unknown;
  try {
    version = pick({ ...packument, "dist-tags": Object.fromEntries(usable) }, spec.wanted).version;
  } catch (cause) {
    const tags = Object.keys(packument["dist-tags"]).sort();
    const shown = tags.slice(0, 20).map(quoted).join(", ") + (tags.length > 20 ? ", …" : "");
    throw new RegistryError(
      "no_matching_version",
      `registry ${registry} has no version of ${spec.name} matching ${spec.kind === "tag" ? `the dist-tag ${quoted(spec.wanted)}` : quoted(spec.wanted)} (dist-tags: ${shown || "none"})`,
      { cause },
    );
  }
  if (!listedVersion(packument, version))
    throw new RegistryError(
      "registry_invalid",
      `registry ${registry} offers for ${spec.name} ${quoted(spec.wanted)} the version ${quoted(version)}, which is not one of its versions`,
    );
  return version;
}

/**
 * Whether `version` is a version of `packument` that may be used: valid
 * semver as written (no `v`, no spaces, nothing after it) and a member of
 * `versions` whose own `version` says the same.
 */
function listedVersion(packument: Packument, version: unknown): version is string {
  if (typeof version !== "string" || version.length > 256) return false;
  const parsed = semver.parse(version);
  const canonical =
    parsed !== null &&
    version ===
      [parsed.version, ...(parsed.build.length > 0 ? [parsed.build.join(".")] : [])].join("+");
  return (
    canonical &&
    Object.hasOwn(packument.versions, version) &&
    packument.versions[version]?.version === version
  );
}

/** The version a dist-tag names, when it is one of the package's versions (`registry_invalid` otherwise). */
function taggedVersion(packument: Packument, tag: string, name: string, registry: string): string {
  const version: unknown = packument["dist-tags"][tag];
  if (!listedVersion(packument, version))
    throw new RegistryError(
      "registry_invalid",
      `registry ${registry} names as the ${tag} version of ${name} ${quoted(version)}, which is not one of its versions`,
    );
  return version;
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
  if (!Object.hasOwn(packument["dist-tags"], "latest"))
    throw new RegistryError(
      "registry_invalid",
      `registry ${registry} names no latest version of ${spec.name}`,
    );
  const latest = taggedVersion(packument, "latest", spec.name, registry);
  return { current, wanted: pickVersion(packument, upgradeSpec(spec), registry), latest };
}
