// A spec resolved at a registry: its package document fetched (bounded) and
// read as npm reads it, and the version the spec picks.

import npa from "npm-package-arg";
import regFetch from "npm-registry-fetch";
import { RegistryError } from "./_errors.js";
import { boundedGet } from "./_fetch.js";
import { PACKUMENT_MAX_BYTES } from "./_limits.js";
import type { NpmOptions } from "./_npm-config.js";
import type { RegistrySpec } from "./_spec.js";
import { integrityOf, type Packument, pickVersion } from "./_versions.js";

/** What npm's install asks for: the abbreviated document ("corgi"), else the full one. */
const CORGI = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*";

/** One version of a package at a registry, ready to be fetched. */
export interface Resolution {
  /** The registry npm's configuration names for the package, ending in `/`. */
  readonly registry: string;
  readonly name: string;
  readonly version: string;
  /** The SRI integrity the registry published for its tarball. */
  readonly integrity: string;
  readonly tarball: string;
}

/** The registry npm's configuration names for a package (its scope's, else the default). */
export function registryOf(name: string, npm: NpmOptions): string {
  const url = regFetch.pickRegistry(npa(name), npm.flat);
  return url.endsWith("/") ? url : `${url}/`;
}

/**
 * The package document of `name` at the registry npm's configuration names
 * for it, at most {@link PACKUMENT_MAX_BYTES}.
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
    url: `${registry}${npa(name).escapedName}`,
    name,
    registry,
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

/** The {@link Resolution} of one version of a fetched package document. */
export function resolutionOf(
  packument: Packument,
  name: string,
  version: string,
  registry: string,
): Resolution {
  const v = packument.versions[version];
  const integrity = v === undefined ? undefined : integrityOf(v);
  if (v === undefined || typeof v.dist?.tarball !== "string" || integrity === undefined)
    throw new RegistryError(
      "registry_invalid",
      `registry ${registry} lists ${name}@${version} without a tarball and its integrity`,
    );
  return { registry, name, version, integrity, tarball: v.dist.tarball };
}
