// A revision's catalog: what its enabled extensions offer, written once at
// publication beside the revision (`revisions/<id>.catalog.json`) and bound
// to it by the SHA-256 the revision records. A header line with the route
// key and the tools' client-fit slugs, then one line per extension: its
// package digest, the SHA-256 of its part
// (`revisions/parts/<digest>.json`, the validated descriptor), its
// routing and its tools. A line depends on its package and the exposure
// alone, so the next publication copies the lines of what it keeps. Listing tools, writing docs, an MCP host's first list and the next
// publication read it instead of re-reading and re-validating every stored
// package; running a command still verifies that command's own package. A
// catalog, or a part, that is missing or does not hash to its digest is never
// used: the reader falls back to the store, which verifies every package.

import { createHash } from "node:crypto";
import { join } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import {
  type CliRouteTable,
  extensionOf,
  type IndexedTool,
  ioError,
  ProfileError,
  type ProfileRevision,
  type Routing,
  type ToolNaming,
  type ToolProjection,
} from "../model/index.js";
import {
  buildRoutes,
  projectionFromIndex,
  projectionOf,
  routingOf,
  type SlugIndex,
  slugIndexFromJson,
  slugIndexJson,
  toolCommands,
} from "../projection/index.js";
import { PART_MAX_BYTES, partLine, partPath, readFileAtMost } from "../routes/index.js";
import type { Part } from "./_parts.js";

/**
 * Format tag of a `revisions/<id>.catalog.json` file. A publication carries
 * the tool index and routing of unchanged extensions over from its base's
 * catalog: a change to what {@link toolCommands} or {@link routingOf}
 * derive must change this tag, so that no catalog of the old derivation is
 * carried over.
 */
export const CATALOG_FORMAT = "rukh.revision-catalog/9";

/** The largest catalog read: 64 MiB (10,000 commands take about 1.2 MiB). */
const CATALOG_MAX_BYTES = 67_108_864;

// The path of revision `id`'s catalog.
const catalogPath = (root: string, id: string) => join(root, "revisions", `${id}.catalog.json`);

/**
 * The catalog line of a package with its part, validated descriptor and
 * tools: `[digest, part, routing, tools]`, where `routing` is `{ id,
 * publisher, groups, commands: [{ identity, path, aliases }] }` and `tools`
 * the package's commands that are MCP tools, as the publication chose and
 * checked them, each `[identity, bytes, title, actions, resources, strict?]` with its
 * encoded size less its name and what it requests of a preset (so that
 * listing names, titles and pages, for any preset, reads no part).
 */
export function catalogLine(
  part: Part,
  descriptor: ExtensionDescriptor,
  tools: readonly IndexedTool[],
): string {
  return JSON.stringify([part.digest, part.sha, routingOf(descriptor), tools]);
}

/**
 * The catalog text of a revision: a header line `{ format, routeKey, slugs,
 * shared }` (the revision's route key: which identity each CLI path names,
 * fingerprinted; its tools' client-fit slugs, see {@link slugIndexJson}),
 * then each enabled extension's line (see {@link catalogLine}), in revision
 * order.
 */
export function catalogFileText(
  lines: readonly string[],
  routeKey: string,
  slugs: SlugIndex,
): string {
  const header = JSON.stringify({ format: CATALOG_FORMAT, routeKey, ...slugIndexJson(slugs) });
  return `${[header, ...lines].join("\n")}\n`;
}

/** A revision's catalog as read: the tool index and routing, and each descriptor read from its part when asked for. */
export interface Catalog {
  /** The revision's MCP tools: identity, size without the name, title, requests (every line parsed when first read). */
  readonly tools: readonly IndexedTool[];
  /** The revision's route key. */
  readonly routeKey: string;
  /** Its tools' client-fit slugs; `undefined` when the header's are malformed (then made from the tools). */
  slugIndex(): SlugIndex | undefined;
  /** Whether an extension's package (by digest) is in the catalog. */
  has(digest: string): boolean;
  /** The descriptor, from the package's part; throws when the part is missing or fails its digest. */
  descriptor(digest: string): ExtensionDescriptor;
  routing(digest: string): Routing;
  /** The extension's line as written (to carry it into the next catalog). */
  line(digest: string): string;
  /** The SHA-256 of the extension's part. */
  partSha(digest: string): string;
  /** The extension's MCP tools. */
  toolsOf(digest: string): readonly IndexedTool[];
  /** The enabled extensions' package digests, in revision order. */
  readonly digests: readonly string[];
  /** Every descriptor, by digest; `undefined` when a part is missing or fails its digest. */
  all(): Map<string, ExtensionDescriptor> | undefined;
}

type ParsedLine = readonly [string, string, Routing, IndexedTool[]];

const isNames = (x: unknown): x is string[] =>
  Array.isArray(x) && x.every((n) => typeof n === "string");

const isLine = (x: unknown): x is ParsedLine =>
  Array.isArray(x) &&
  typeof x[1] === "string" &&
  typeof x[2] === "object" &&
  x[2] !== null &&
  Array.isArray((x[2] as Routing).groups) &&
  Array.isArray((x[2] as Routing).commands) &&
  Array.isArray(x[3]) &&
  x[3].every(
    (t: unknown) =>
      Array.isArray(t) &&
      typeof t[0] === "string" &&
      Number.isSafeInteger(t[1]) &&
      typeof t[2] === "string" &&
      isNames(t[3]) &&
      isNames(t[4]),
  );

/**
 * Revision `id`'s catalog, or `undefined` when there is none to trust (a
 * revision of an earlier version, a missing file, one that is too large,
 * does not hash to the recorded digest or does not hold exactly the
 * revision's enabled extensions). A line is parsed when it is first needed.
 */
export async function readCatalog(
  root: string,
  id: string,
  revision: ProfileRevision,
): Promise<Catalog | undefined> {
  if (revision.catalogDigest === undefined) return undefined;
  let read: ReturnType<typeof readFileAtMost>;
  try {
    read = readFileAtMost(catalogPath(root, id), CATALOG_MAX_BYTES);
  } catch (e) {
    throw ioError(`cannot read the catalog of revision ${id}`, e);
  }
  if (read === undefined || read === "large") return undefined;
  if (createHash("sha256").update(read).digest("hex") !== revision.catalogDigest) return undefined;
  // The bytes are the ones this state directory's publisher wrote for the revision.
  const text = read.toString("utf8");
  const lines = text.split("\n");
  if (lines.pop() !== "") return undefined;
  let header: { format?: unknown; routeKey?: unknown; slugs?: unknown; shared?: unknown };
  try {
    header = JSON.parse(lines[0] ?? "");
  } catch {
    return undefined;
  }
  const enabled = revision.extensions.filter((e) => e.enabled);
  if (
    header?.format !== CATALOG_FORMAT ||
    typeof header.routeKey !== "string" ||
    lines.length !== enabled.length + 1 ||
    enabled.some((e, i) => !lines[i + 1]!.startsWith(`["${e.digest}",`))
  )
    return undefined;
  const lineOf = new Map(enabled.map((e, i) => [e.digest, lines[i + 1]!]));
  const parsedLines = new Map<string, ParsedLine>();
  const parsed = (digest: string): ParsedLine => {
    let p = parsedLines.get(digest);
    if (p === undefined) {
      const x: unknown = JSON.parse(lineOf.get(digest)!);
      if (!isLine(x))
        throw new ProfileError(
          "invalid_state",
          `the catalog of revision ${id} holds a malformed line for package ${digest}; run doctor --repair`,
        );
      p = x;
      parsedLines.set(digest, p);
    }
    return p;
  };
  const descriptors = new Map<string, ExtensionDescriptor>();
  const descriptor = (digest: string): ExtensionDescriptor => {
    let d = descriptors.get(digest);
    if (d === undefined) {
      const [, sha] = parsed(digest);
      const bytes = readFileAtMost(partPath(root, digest), PART_MAX_BYTES);
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
      descriptors.set(digest, d);
    }
    return d;
  };
  let tools: IndexedTool[] | undefined;
  let slugs: { index: SlugIndex | undefined } | undefined;
  return {
    get tools() {
      tools ??= enabled.flatMap((e) => parsed(e.digest)[3]);
      return tools;
    },
    routeKey: header.routeKey,
    slugIndex: () => {
      slugs ??= { index: slugIndexFromJson(header) };
      return slugs.index;
    },
    digests: enabled.map((e) => e.digest),
    has: (digest) => lineOf.has(digest),
    descriptor,
    routing: (digest) => parsed(digest)[2],
    line: (digest) => lineOf.get(digest)!,
    partSha: (digest) => parsed(digest)[1],
    toolsOf: (digest) => parsed(digest)[3],
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
export function catalogProjection(options: {
  readonly id: string;
  readonly revision: ProfileRevision;
  readonly catalog: Catalog;
  readonly onRouteKey: (routeKey: string) => void;
  readonly cached?: () => CliRouteTable | undefined;
  readonly naming?: ToolNaming | undefined;
}): ToolProjection {
  const { revision, catalog } = options;
  const digestOf = new Map(revision.extensions.map((e) => [e.id, e.digest]));
  const enabled = revision.extensions.filter((e) => e.enabled);
  options.onRouteKey(catalog.routeKey);
  return projectionFromIndex(
    projectionOf(options.id, revision, options.naming),
    {
      tools: catalog.tools,
      commandOf: (identity) =>
        catalog
          .descriptor(digestOf.get(extensionOf(identity))!)
          .commands.find((c) => c.identity === identity)!,
    },
    () => {
      const routes = options.cached?.();
      if (routes !== undefined) return routes;
      return buildRoutes(enabled.map((e) => ({ descriptor: catalog.descriptor(e.digest) }))).routes;
    },
  );
}
