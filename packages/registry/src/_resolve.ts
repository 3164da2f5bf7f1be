// A spec resolved at a registry: its package document fetched (bounded) and
// read as npm reads it, and the version the spec picks.

import npa from "npm-package-arg";
import { RegistryError } from "./_errors.js";
import { boundedGet, configuredRegistry } from "./_fetch.js";
import { strongIntegrity } from "./_integrity.js";
import { PACKUMENT_MAX_BYTES } from "./_limits.js";
import type { NpmOptions } from "./_npm-config.js";
import { quoted, registryAddress } from "./_redact.js";
import type { RegistrySpec } from "./_spec.js";
import { type Packument, type PackumentVersion, pickVersion } from "./_versions.js";

/** What npm's install asks for: the abbreviated document ("corgi"), else the full one. */
const CORGI = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*";

/** One version of a package at a registry, ready to be fetched. */
export interface Resolution {
  /**
   * The registry npm's configuration names for the package, ending in `/`,
   * as it may be shown and recorded: without the user info, query or
   * fragment its configured address may have.
   */
  readonly registry: string;
  readonly name: string;
  readonly version: string;
  /** The strong SRI integrity the registry published for its tarball (see {@link integrityOf}). */
  readonly integrity: string;
  readonly tarball: string;
}

/**
 * The registry npm's configuration names for a package (its scope's, else
 * the default), as it may be shown: without credentials.
 *
 * @example
 * registryOf("@jane/hello", npm); // "https://registry.example/"
 */
export function registryOf(name: string, npm: NpmOptions): string {
  return registryAddress(configuredRegistry(name, npm));
}

/**
 * The package document of `name` at the registry npm's configuration names
 * for it, at most {@link PACKUMENT_MAX_BYTES}; `registry` is that registry
 * as it may be shown.
 *
 * @example
 * const { packument, registry } = await fetchPackument("@jane/hello", npm);
 */
export async function fetchPackument(
  name: string,
  npm: NpmOptions,
): Promise<{ packument: Packument; registry: string }> {
  const registry = registryOf(name, npm);
  const what = `the package document of ${name}`;
  const body = await boundedGet(npm, {
    url: `${configuredRegistry(name, npm)}${npa(name).escapedName}`,
    name,
    what,
    maxBytes: PACKUMENT_MAX_BYTES,
    tooLarge: `${what} from registry ${registry} is larger than ${PACKUMENT_MAX_BYTES} bytes`,
    accept: CORGI,
  });
  // JSON.parse, not the strict reader: this is npm's format, read as npm
  // reads it; nothing in it is trusted beyond choosing what to fetch.
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString("utf8"));
  } catch {
    doc = undefined;
  }
  if (!isPackument(doc, name))
    throw new RegistryError(
      "registry_invalid",
      `registry ${registry} answered something that is not a package document for ${name}`,
    );
  return { packument: doc, registry };
}

function isPackument(doc: unknown, name: string): doc is Packument {
  if (typeof doc !== "object" || doc === null) return false;
  const d = doc as Record<string, unknown>;
  const obj = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  return d.name === name && obj(d["dist-tags"]) && obj(d.versions);
}

/**
 * The version of `spec` npm would install, where its tarball is and the
 * integrity it must have.
 *
 * @example
 * const r = await resolvePackage(registrySpec("@jane/hello@^1.2")!, npm); // { version: "1.4.0", … }
 */
export async function resolvePackage(
  spec: Pick<RegistrySpec, "name" | "kind" | "wanted">,
  npm: NpmOptions,
): Promise<Resolution> {
  const { packument, registry } = await fetchPackument(spec.name, npm);
  return resolutionOf(packument, spec.name, pickVersion(packument, spec, registry), registry);
}

function httpAddress(text: unknown): text is string {
  try {
    return typeof text === "string" && /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

/**
 * The {@link Resolution} of one version of a fetched package document:
 * `registry_invalid` when it has no http(s) tarball address or no strong
 * integrity (an empty, MD5 or SHA-1 one, or a SHA-1 `shasum` alone, checks
 * nothing worth the name).
 */
export function resolutionOf(
  packument: Packument,
  name: string,
  version: string,
  registry: string,
): Resolution {
  const v = packument.versions[version];
  const at = `registry ${registry} lists ${name}@${version}`;
  if (v === undefined || !httpAddress(v.dist?.tarball))
    throw new RegistryError("registry_invalid", `${at} without an http(s) tarball address`);
  const integrity = integrityOf(v);
  if (integrity === undefined) {
    const published =
      v.dist.integrity !== undefined
        ? `with integrity ${quoted(v.dist.integrity)}`
        : v.dist.shasum !== undefined
          ? "with only a SHA-1 shasum"
          : "without an integrity";
    throw new RegistryError(
      "registry_invalid",
      `${at} ${published}; expected a sha256, sha384 or sha512 integrity (its digest 32, 48 or 64 bytes), as npm publishes`,
    );
  }
  return { registry, name, version, integrity, tarball: v.dist.tarball };
}

/**
 * A version's integrity as it is checked: the strong hashes (sha256,
 * sha384, sha512 with a digest of the right length) of its `dist.integrity`,
 * or `undefined` when it has none (a SHA-1 `shasum` is not one).
 *
 * @example
 * integrityOf({ version: "1.0.0", dist: { tarball, integrity: "sha512-" } }); // undefined
 */
export function integrityOf(version: PackumentVersion): string | undefined {
  return strongIntegrity(version.dist?.integrity);
}
