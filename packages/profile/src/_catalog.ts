// A revision's catalog: the validated descriptors of its enabled extensions,
// written once at publication beside the revision
// (`revisions/<id>.catalog.json`) and bound to it by the SHA-256 the revision
// records. Listing tools, writing docs, an MCP host's first list and the next
// publication read it instead of re-reading and re-validating every stored
// package; running a command still verifies that command's own package. A
// catalog that is missing or does not hash to its digest is never used: the
// reader falls back to the store, which verifies every package.

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { ioError } from "./_errors.js";
import type { LoadedExtension } from "./_projection.js";
import type { InstalledExtension, ProfileRevision } from "./_revision.js";

/** Format tag of a `revisions/<id>.catalog.json` file. */
export const CATALOG_FORMAT = "rukh.revision-catalog/1";

/** The largest catalog read: 256 MiB (10,000 commands take about 4 MiB). */
const CATALOG_MAX_BYTES = 268_435_456;

// The path of revision `id`'s catalog.
const catalogPath = (root: string, id: string) => join(root, "revisions", `${id}.catalog.json`);

/**
 * The catalog text of a revision's extensions: `loaded` holds the enabled
 * ones' descriptors in revision order (as the state directory loads them),
 * keyed here by package digest.
 */
export function catalogFileText(
  extensions: readonly InstalledExtension[],
  loaded: readonly LoadedExtension[],
): string {
  const descriptors: Record<string, ExtensionDescriptor> = {};
  let i = 0;
  for (const e of extensions) if (e.enabled) descriptors[e.digest] = loaded[i++]!.descriptor;
  return `${JSON.stringify({ format: CATALOG_FORMAT, descriptors })}\n`;
}

/**
 * The descriptors revision `id`'s catalog holds, by package digest, or
 * `undefined` when there is none to trust (a revision of an earlier version,
 * a missing file, one that is too large, does not hash to the recorded
 * digest or lacks an enabled extension).
 */
export async function readCatalog(
  root: string,
  id: string,
  revision: ProfileRevision,
): Promise<Map<string, ExtensionDescriptor> | undefined> {
  if (revision.catalogDigest === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readFile(catalogPath(root, id));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw ioError(`cannot read the catalog of revision ${id}`, e);
  }
  if (bytes.length > CATALOG_MAX_BYTES) return undefined;
  if (createHash("sha256").update(bytes).digest("hex") !== revision.catalogDigest) return undefined;
  // The bytes are the ones this state directory's publisher wrote for the revision.
  const parsed = JSON.parse(bytes.toString("utf8")) as {
    format?: unknown;
    descriptors?: Record<string, ExtensionDescriptor>;
  };
  if (parsed.format !== CATALOG_FORMAT || typeof parsed.descriptors !== "object") return undefined;
  const out = new Map<string, ExtensionDescriptor>();
  for (const e of revision.extensions) {
    if (!e.enabled) continue;
    const d = Object.hasOwn(parsed.descriptors, e.digest)
      ? parsed.descriptors[e.digest]
      : undefined;
    if (d === undefined || d.id !== e.id || d.version !== e.version) return undefined;
    out.set(e.digest, d);
  }
  return out;
}
