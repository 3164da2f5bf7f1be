// A revision's catalog: the validated descriptors of its enabled extensions,
// written once at publication beside the revision
// (`revisions/<id>.catalog.json`) and bound to it by the SHA-256 the revision
// records. Listing tools, writing docs, an MCP host's first list and the next
// publication read it instead of re-reading and re-validating every stored
// package; running a command still verifies that command's own package. A
// catalog that is missing or does not hash to its digest is never used: the
// reader falls back to the store, which verifies every package.

import { createHash } from "node:crypto";
import { join } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { readBounded } from "./_bounded.js";
import type { OwnerConfig } from "./_config.js";
import { ioError } from "./_errors.js";
import {
  type CliRouteTable,
  type IndexedTool,
  indexedTool,
  type LoadedExtension,
  projectionFromIndex,
  type ToolProjection,
  toolCommands,
} from "./_projection.js";
import type { InstalledExtension, ProfileRevision } from "./_revision.js";
import { buildRoutes, type Routing, routingOf } from "./_routes.js";

/**
 * Format tag of a `revisions/<id>.catalog.json` file. A publication carries
 * the tool index and routing of unchanged extensions over from its base's
 * catalog: a change to what {@link toolCommands} or {@link routingOf}
 * derive must change this tag, so that no catalog of the old derivation is
 * carried over.
 */
export const CATALOG_FORMAT = "rukh.revision-catalog/3";

/** The largest catalog read: 256 MiB (10,000 commands take about 8 MiB). */
const CATALOG_MAX_BYTES = 268_435_456;

// The path of revision `id`'s catalog.
const catalogPath = (root: string, id: string) => join(root, "revisions", `${id}.catalog.json`);

/** One enabled extension's two catalog lines: its validated descriptor and its routing. */
export interface CatalogEntry {
  readonly digest: string;
  readonly descriptor: string;
  readonly routing: string;
}

/** The catalog lines of a validated descriptor. */
export function catalogEntry(digest: string, descriptor: ExtensionDescriptor): CatalogEntry {
  return {
    digest,
    descriptor: JSON.stringify(descriptor),
    routing: JSON.stringify(routingOf(descriptor)),
  };
}

/**
 * The catalog text of a revision, JSON lines: a header
 * `{ format, routeKey, tools: [[identity, bytes, title]…], extensions: [[digest, bytes, bytes]…] }` —
 * the revision's route key (which identity each CLI path names, fingerprinted),
 * the commands that are its MCP tools, as the publication chose and checked
 * them (each with its encoded size less its name, and its title, so that
 * listing names, titles and pages parses no descriptor), and the byte
 * lengths of each extension's two lines —
 * then, per enabled extension in revision order, its validated descriptor
 * and its routing (`{ id, publisher, groups, commands: [{ identity, path,
 * aliases }] }`), one line each.
 */
export function catalogFileText(
  entries: readonly CatalogEntry[],
  tools: readonly IndexedTool[],
  routeKey: string,
): string {
  const header = {
    format: CATALOG_FORMAT,
    routeKey,
    tools,
    extensions: entries.map((e) => [
      e.digest,
      Buffer.byteLength(e.descriptor),
      Buffer.byteLength(e.routing),
    ]),
  };
  const lines = [JSON.stringify(header)];
  for (const e of entries) lines.push(e.descriptor, e.routing);
  return `${lines.join("\n")}\n`;
}

/** The catalog text derived from every enabled extension's descriptor (`loaded`, in revision order). */
export function derivedCatalogText(
  extensions: readonly InstalledExtension[],
  loaded: readonly LoadedExtension[],
  config: OwnerConfig,
  routeKey: string,
): string {
  const enabled = extensions.filter((e) => e.enabled);
  return catalogFileText(
    enabled.map((e, i) => catalogEntry(e.digest, loaded[i]!.descriptor)),
    toolCommands(config, loaded).map(indexedTool),
    routeKey,
  );
}

/** A revision's catalog as read: the tool index, and each line parsed when asked for. */
export interface Catalog {
  /** The revision's MCP tools: identity, size without the name, title. */
  readonly tools: readonly IndexedTool[];
  /** The revision's route key, when the catalog records it (version 3). */
  readonly routeKey: string | undefined;
  /** Whether an extension's package (by digest) is in the catalog. */
  has(digest: string): boolean;
  descriptor(digest: string): ExtensionDescriptor;
  routing(digest: string): Routing;
  /** The extension's lines as written (to carry them into the next catalog). */
  entry(digest: string): CatalogEntry;
  /** Every descriptor, by digest. */
  all(): Map<string, ExtensionDescriptor>;
}

/**
 * Revision `id`'s catalog, or `undefined` when there is none to trust (a
 * revision of an earlier version, a missing file, one that is too large,
 * does not hash to the recorded digest or does not hold exactly the
 * revision's enabled extensions). Without `routing`, routing lines are not
 * kept (a routing asked for is derived from the descriptor).
 */
export async function readCatalog(
  root: string,
  id: string,
  revision: ProfileRevision,
  options: { readonly routing: boolean } = { routing: true },
): Promise<Catalog | undefined> {
  if (revision.catalogDigest === undefined) return undefined;
  let read: ReturnType<typeof readBounded>;
  try {
    read = readBounded(catalogPath(root, id), CATALOG_MAX_BYTES);
  } catch (e) {
    throw ioError(`cannot read the catalog of revision ${id}`, e);
  }
  if (read === undefined || read === "large") return undefined;
  const bytes = read;
  if (createHash("sha256").update(bytes).digest("hex") !== revision.catalogDigest) return undefined;
  // The bytes are the ones this state directory's publisher wrote for the revision.
  const nl = bytes.indexOf(10);
  const header = nl === -1 ? undefined : JSON.parse(bytes.subarray(0, nl).toString("utf8"));
  const enabled = revision.extensions.filter((e) => e.enabled);
  // Version 2 (written by the previous release) holds no routing lines; the
  // routing is derived from the descriptor when asked for.
  const routed = header?.format === CATALOG_FORMAT;
  if (
    (!routed && header?.format !== "rukh.revision-catalog/2") ||
    !Array.isArray(header.tools) ||
    !header.tools.every(
      (t: unknown) =>
        Array.isArray(t) &&
        typeof t[0] === "string" &&
        Number.isSafeInteger(t[1]) &&
        typeof t[2] === "string",
    ) ||
    !Array.isArray(header.extensions) ||
    header.extensions.length !== enabled.length ||
    enabled.some((e, i) => header.extensions[i][0] !== e.digest)
  )
    return undefined;
  // Each line becomes its own string, dropped once parsed: the file's bytes
  // are not held, and what a reader never asks for is never parsed. A reader
  // that needs no routing (a projection) keeps no routing lines.
  const descriptorText = new Map<string, string>();
  const routingText = new Map<string, string>();
  let at = nl + 1;
  for (const [digest, size, routingSize] of header.extensions as [string, number, number][]) {
    descriptorText.set(digest, bytes.toString("utf8", at, at + size));
    at += size + 1;
    if (!routed) continue;
    if (options.routing) routingText.set(digest, bytes.toString("utf8", at, at + routingSize));
    at += routingSize + 1;
  }
  if (at !== bytes.length) return undefined;
  const known = new Set(descriptorText.keys());
  const parsed = new Map<string, ExtensionDescriptor>();
  const routings = new Map<string, Routing>();
  const descriptor = (digest: string): ExtensionDescriptor => {
    let d = parsed.get(digest);
    if (d === undefined) {
      d = JSON.parse(descriptorText.get(digest)!) as ExtensionDescriptor;
      parsed.set(digest, d);
      descriptorText.delete(digest);
    }
    return d;
  };
  const routing = (digest: string): Routing => {
    let r = routings.get(digest);
    if (r === undefined) {
      const text = routingText.get(digest);
      r = text === undefined ? routingOf(descriptor(digest)) : (JSON.parse(text) as Routing);
      routings.set(digest, r);
      routingText.delete(digest);
    }
    return r;
  };
  const entry = (digest: string): CatalogEntry => {
    const text = descriptorText.get(digest);
    const routingLine = routingText.get(digest);
    if (text === undefined || routingLine === undefined)
      return catalogEntry(digest, descriptor(digest));
    return { digest, descriptor: text, routing: routingLine };
  };
  return {
    tools: header.tools,
    routeKey: routed && typeof header.routeKey === "string" ? header.routeKey : undefined,
    has: (digest) => known.has(digest),
    descriptor,
    routing,
    entry,
    all: () => new Map(enabled.map((e) => [e.digest, descriptor(e.digest)])),
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
): ToolProjection {
  const digestOf = new Map(revision.extensions.map((e) => [e.id, e.digest]));
  const enabled = revision.extensions.filter((e) => e.enabled);
  if (catalog.routeKey !== undefined) onRouteKey(catalog.routeKey);
  return projectionFromIndex(
    id,
    revision.commandGeneration,
    revision.config,
    catalog.tools,
    (identity) =>
      catalog
        .descriptor(digestOf.get(identity.slice(0, identity.indexOf("/")))!)
        .commands.find((c) => c.identity === identity)!,
    () => {
      const routes = catalog.routeKey === undefined ? undefined : cached();
      if (routes !== undefined) return routes;
      const built = buildRoutes(enabled.map((e) => ({ descriptor: catalog.descriptor(e.digest) })));
      onRouteKey(built.routeKey);
      return built.routes;
    },
  );
}
