// A revision's catalog: what its enabled extensions offer, written once at
// publication beside the revision (`revisions/<id>.catalog.json`) and bound
// to it by the SHA-256 the revision records. One header line: the route key,
// the tool index and, per extension, its package digest, the SHA-256 of its
// part (`revisions/parts/<digest>.json`, the validated descriptor) and its
// routing. Listing tools, writing docs, an MCP host's first list and the next
// publication read it instead of re-reading and re-validating every stored
// package; running a command still verifies that command's own package. A
// catalog, or a part, that is missing or does not hash to its digest is never
// used: the reader falls back to the store, which verifies every package.

import { createHash } from "node:crypto";
import { join } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { readBounded } from "./_bounded.js";
import type { ToolNaming } from "./_endpoints.js";
import { ioError, ProfileError } from "./_errors.js";
import type { Part } from "./_parts.js";
import {
  type CliRouteTable,
  type IndexedTool,
  projectionFromIndex,
  type ToolProjection,
  toolCommands,
} from "./_projection.js";
import { devLinkIds, type ProfileRevision } from "./_revision.js";
import { buildRoutes, type Routing, routingOf } from "./_routes.js";
import { PART_MAX_BYTES, partLine, partPath } from "./route-cache.js";

/**
 * Format tag of a `revisions/<id>.catalog.json` file. A publication carries
 * the tool index and routing of unchanged extensions over from its base's
 * catalog: a change to what {@link toolCommands} or {@link routingOf}
 * derive must change this tag, so that no catalog of the old derivation is
 * carried over.
 */
export const CATALOG_FORMAT = "rukh.revision-catalog/4";

/** The largest catalog read: 64 MiB (10,000 commands take about 1.2 MiB). */
const CATALOG_MAX_BYTES = 67_108_864;

// The path of revision `id`'s catalog.
const catalogPath = (root: string, id: string) => join(root, "revisions", `${id}.catalog.json`);

/** One enabled extension in a catalog: its package digest, its part's SHA-256, its routing. */
export type CatalogEntry = readonly [digest: string, part: string, routing: Routing];

/** The catalog entry of a package with its part and validated descriptor. */
export function catalogEntry(part: Part, descriptor: ExtensionDescriptor): CatalogEntry {
  return [part.digest, part.sha, routingOf(descriptor)];
}

/**
 * The catalog text of a revision, one line
 * `{ format, routeKey, tools: [[identity, bytes, title]…], extensions: [[digest, part, routing]…] }`:
 * the revision's route key (which identity each CLI path names,
 * fingerprinted); the commands that are its MCP tools, as the publication
 * chose and checked them, each with its encoded size less its name and its
 * title (so that listing names, titles and pages reads no part); and per
 * enabled extension, in revision order, its package digest, the SHA-256 of
 * its part and its routing (`{ id, publisher, groups, commands: [{
 * identity, path, aliases }] }`).
 */
export function catalogFileText(
  entries: readonly CatalogEntry[],
  tools: readonly IndexedTool[],
  routeKey: string,
): string {
  return `${JSON.stringify({ format: CATALOG_FORMAT, routeKey, tools, extensions: entries })}\n`;
}

/** A revision's catalog as read: the tool index and routing, and each descriptor read from its part when asked for. */
export interface Catalog {
  /** The revision's MCP tools: identity, size without the name, title. */
  readonly tools: readonly IndexedTool[];
  /** The revision's route key. */
  readonly routeKey: string;
  /** Whether an extension's package (by digest) is in the catalog. */
  has(digest: string): boolean;
  /** The descriptor, from the package's part; throws when the part is missing or fails its digest. */
  descriptor(digest: string): ExtensionDescriptor;
  routing(digest: string): Routing;
  /** The extension's entry as written (to carry it into the next catalog). */
  entry(digest: string): CatalogEntry;
  /** Every descriptor, by digest; `undefined` when a part is missing or fails its digest. */
  all(): Map<string, ExtensionDescriptor> | undefined;
}

const isRouting = (r: unknown): r is Routing =>
  typeof r === "object" &&
  r !== null &&
  Array.isArray((r as Routing).groups) &&
  Array.isArray((r as Routing).commands);

/**
 * Revision `id`'s catalog, or `undefined` when there is none to trust (a
 * revision of an earlier version, a missing file, one that is too large,
 * does not hash to the recorded digest or does not hold exactly the
 * revision's enabled extensions).
 */
export async function readCatalog(
  root: string,
  id: string,
  revision: ProfileRevision,
): Promise<Catalog | undefined> {
  if (revision.catalogDigest === undefined) return undefined;
  let read: ReturnType<typeof readBounded>;
  try {
    read = readBounded(catalogPath(root, id), CATALOG_MAX_BYTES);
  } catch (e) {
    throw ioError(`cannot read the catalog of revision ${id}`, e);
  }
  if (read === undefined || read === "large") return undefined;
  if (createHash("sha256").update(read).digest("hex") !== revision.catalogDigest) return undefined;
  // The bytes are the ones this state directory's publisher wrote for the revision.
  let header: { format?: unknown; routeKey?: unknown; tools?: unknown; extensions?: unknown };
  try {
    header = JSON.parse(read.toString("utf8"));
  } catch {
    return undefined;
  }
  const enabled = revision.extensions.filter((e) => e.enabled);
  const entries = header?.extensions as CatalogEntry[];
  if (
    header?.format !== CATALOG_FORMAT ||
    typeof header.routeKey !== "string" ||
    !Array.isArray(header.tools) ||
    !header.tools.every(
      (t: unknown) =>
        Array.isArray(t) &&
        typeof t[0] === "string" &&
        Number.isSafeInteger(t[1]) &&
        typeof t[2] === "string",
    ) ||
    !Array.isArray(entries) ||
    entries.length !== enabled.length ||
    enabled.some(
      (e, i) =>
        !Array.isArray(entries[i]) ||
        entries[i]![0] !== e.digest ||
        typeof entries[i]![1] !== "string" ||
        !isRouting(entries[i]![2]),
    )
  )
    return undefined;
  const byDigest = new Map(entries.map((e) => [e[0], e]));
  const parsed = new Map<string, ExtensionDescriptor>();
  const descriptor = (digest: string): ExtensionDescriptor => {
    let d = parsed.get(digest);
    if (d === undefined) {
      const [, sha] = byDigest.get(digest)!;
      const bytes = readBounded(partPath(root, digest), PART_MAX_BYTES);
      if (
        bytes === undefined ||
        bytes === "large" ||
        createHash("sha256").update(bytes).digest("hex") !== sha
      )
        throw new ProfileError(
          "invalid_state",
          `the part of package ${digest} (revisions/parts/${digest}.json) is missing or does not match the digest revision ${id}'s catalog records; run doctor --repair`,
        );
      d = JSON.parse(partLine(bytes, 0)!.toString("utf8")) as ExtensionDescriptor;
      parsed.set(digest, d);
    }
    return d;
  };
  return {
    tools: header.tools as IndexedTool[],
    routeKey: header.routeKey,
    has: (digest) => byDigest.has(digest),
    descriptor,
    routing: (digest) => byDigest.get(digest)![2],
    entry: (digest) => byDigest.get(digest)!,
    all: () => {
      try {
        return new Map(enabled.map((e) => [e.digest, descriptor(e.digest)]));
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Revision `id`'s projection from its catalog: names, titles and page sizes
 * from the tool index, a descriptor parsed only when one of its tools'
 * description or schemas is read. The CLI routes are the revision's route
 * cache when `cached` gives them (checked against the digests the revision
 * binds), else built from the descriptors; `onRouteKey` learns the route key.
 */
export function catalogProjection(
  id: string,
  revision: ProfileRevision,
  catalog: Catalog,
  onRouteKey: (routeKey: string) => void,
  cached: () => CliRouteTable | undefined = () => undefined,
  naming?: ToolNaming,
): ToolProjection {
  const digestOf = new Map(revision.extensions.map((e) => [e.id, e.digest]));
  const enabled = revision.extensions.filter((e) => e.enabled);
  onRouteKey(catalog.routeKey);
  return projectionFromIndex(
    id,
    revision.commandGeneration,
    revision.config,
    devLinkIds(revision.extensions),
    catalog.tools,
    (identity) =>
      catalog
        .descriptor(digestOf.get(identity.slice(0, identity.indexOf("/")))!)
        .commands.find((c) => c.identity === identity)!,
    () => {
      const routes = cached();
      if (routes !== undefined) return routes;
      return buildRoutes(enabled.map((e) => ({ descriptor: catalog.descriptor(e.digest) }))).routes;
    },
    false,
    naming,
  );
}
