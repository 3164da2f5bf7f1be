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
import type { CommandSpec, ExtensionDescriptor } from "@rukh/descriptor";
import { readBounded } from "./_bounded.js";
import { ioError } from "./_errors.js";
import {
  buildRoutes,
  type LoadedExtension,
  projectionFromIndex,
  type ToolProjection,
} from "./_projection.js";
import type { InstalledExtension, ProfileRevision } from "./_revision.js";

/** Format tag of a `revisions/<id>.catalog.json` file. */
export const CATALOG_FORMAT = "rukh.revision-catalog/2";

/** The largest catalog read: 256 MiB (10,000 commands take about 8 MiB). */
const CATALOG_MAX_BYTES = 268_435_456;

// The path of revision `id`'s catalog.
const catalogPath = (root: string, id: string) => join(root, "revisions", `${id}.catalog.json`);

/**
 * The catalog text of a revision, JSON lines: a header
 * `{ format, tools: [identity…], extensions: [[digest, bytes]…] }` — the
 * commands that are the revision's MCP tools, as the publication chose and
 * checked them, and the byte length of each descriptor line —
 * then one line per enabled extension with its validated descriptor, in
 * revision order. `loaded` holds those descriptors in that order.
 */
export function catalogFileText(
  extensions: readonly InstalledExtension[],
  loaded: readonly LoadedExtension[],
  tools: readonly CommandSpec[],
): string {
  const enabled = extensions.filter((e) => e.enabled);
  const lines = loaded.map((l) => JSON.stringify(l.descriptor));
  const header = {
    format: CATALOG_FORMAT,
    tools: tools.map((t) => t.identity),
    extensions: enabled.map((e, i) => [e.digest, Buffer.byteLength(lines[i]!)]),
  };
  return `${[JSON.stringify(header), ...lines].join("\n")}\n`;
}

/** A revision's catalog as read: the tool index, and each descriptor parsed when asked for. */
export interface Catalog {
  /** The identities of the revision's MCP tools. */
  readonly tools: readonly string[];
  descriptor(digest: string): ExtensionDescriptor;
  /** Every descriptor, by digest. */
  all(): Map<string, ExtensionDescriptor>;
}

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
  const bytes = read;
  if (createHash("sha256").update(bytes).digest("hex") !== revision.catalogDigest) return undefined;
  // The bytes are the ones this state directory's publisher wrote for the revision.
  const nl = bytes.indexOf(10);
  const header = nl === -1 ? undefined : JSON.parse(bytes.subarray(0, nl).toString("utf8"));
  const enabled = revision.extensions.filter((e) => e.enabled);
  if (
    header?.format !== CATALOG_FORMAT ||
    !Array.isArray(header.tools) ||
    !Array.isArray(header.extensions) ||
    header.extensions.length !== enabled.length ||
    enabled.some((e, i) => header.extensions[i][0] !== e.digest)
  )
    return undefined;
  const lines = new Map<string, [number, number]>();
  let at = nl + 1;
  for (const [digest, size] of header.extensions as [string, number][]) {
    lines.set(digest, [at, size]);
    at += size + 1;
  }
  if (at !== bytes.length) return undefined;
  const parsed = new Map<string, ExtensionDescriptor>();
  let text: Buffer | undefined = bytes;
  const descriptor = (digest: string): ExtensionDescriptor => {
    let d = parsed.get(digest);
    if (d === undefined) {
      const [start, size] = lines.get(digest)!;
      d = JSON.parse(text!.subarray(start, start + size).toString("utf8")) as ExtensionDescriptor;
      parsed.set(digest, d);
      // Once every line is parsed the file's bytes are not needed any more.
      if (parsed.size === lines.size) text = undefined;
    }
    return d;
  };
  return {
    tools: header.tools,
    descriptor,
    all: () => new Map(enabled.map((e) => [e.digest, descriptor(e.digest)])),
  };
}

/**
 * Revision `id`'s projection from its catalog: names from the tool index, a
 * descriptor parsed only when one of its tools (or the CLI routes) is read;
 * `onRouteKey` learns the route key when the routes are built.
 */
export function catalogProjection(
  id: string,
  revision: ProfileRevision,
  catalog: Catalog,
  onRouteKey: (routeKey: string) => void,
): ToolProjection {
  const digestOf = new Map(revision.extensions.map((e) => [e.id, e.digest]));
  const enabled = revision.extensions.filter((e) => e.enabled);
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
      const built = buildRoutes(enabled.map((e) => ({ descriptor: catalog.descriptor(e.digest) })));
      onRouteKey(built.routeKey);
      return built.routes;
    },
  );
}
