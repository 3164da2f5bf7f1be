// What a publication derives from its enabled extensions before it commits:
// the routing checks, the tool index, the catalog and the route cache. From
// the descriptors of every extension (a first publication, a configuration
// that changes what is exposed, a base without usable files), or carried
// over: an extension whose package the base already held keeps its catalog
// lines, tool index entries and route cache lines byte for byte, and only the
// packages being installed are derived afresh — the same bytes either way
// (`checkRouteCache` compares the files with a derivation from the store).

import type { CommandSpec, ExtensionDescriptor } from "@rukh/descriptor";
import { canonicalJson, type JsonValue } from "@rukh/json";
import { type Catalog, catalogEntry, catalogFileText, derivedCatalogText } from "./_catalog.js";
import type { OwnerConfig } from "./_config.js";
import {
  type CliRouteTable,
  type IndexedTool,
  indexedTool,
  type LoadedExtension,
  toolCommands,
} from "./_projection.js";
import type { InstalledExtension } from "./_revision.js";
import { type RouteRow, routeRow, routesFileText, routesFileTextOf } from "./_routecache.js";
import { buildRoutes, claimRoutes, type Routing, routeOf } from "./_routes.js";
import { checkCliOwnership } from "./_trust.js";
import type { RouteCacheRead } from "./route-cache.js";

/** The files and checks a publication derives, before its revision id is known. */
export interface Derivation {
  readonly catalogText: string;
  readonly routeKey: string;
  /** The revision's MCP tools, in catalog order. */
  readonly tools: readonly IndexedTool[];
  routesText(commandGeneration: number): string;
  commandOf(identity: string): CommandSpec;
  routes(): CliRouteTable;
}

const extensionOf = (identity: string) => identity.slice(0, identity.indexOf("/"));

function finder(descriptors: ReadonlyMap<string, ExtensionDescriptor>) {
  return (identity: string): CommandSpec =>
    descriptors.get(extensionOf(identity))!.commands.find((c) => c.identity === identity)!;
}

/** The derivation from every enabled extension's descriptor (`loaded`, in revision order). */
export function derive(
  config: OwnerConfig,
  extensions: readonly InstalledExtension[],
  loaded: readonly LoadedExtension[],
): Derivation {
  checkCliOwnership(loaded.map((l) => l.descriptor));
  const { routes, routeKey } = buildRoutes(loaded);
  return {
    catalogText: derivedCatalogText(extensions, loaded, config, routeKey),
    routeKey,
    tools: toolCommands(config, loaded).map(indexedTool),
    routesText: (generation) => routesFileText(generation, routes),
    commandOf: finder(new Map(loaded.map((l) => [l.descriptor.id, l.descriptor]))),
    routes: () => routes,
  };
}

/** A base revision's files, as read and verified. */
export interface BaseFiles {
  readonly config: OwnerConfig;
  readonly catalog: Catalog;
  readonly routes: Extract<RouteCacheRead, { ok: true }>;
}

/**
 * The derivation that carries over from `base` every enabled extension whose
 * package it held, deriving only those in `fresh` (by digest); `undefined`
 * when it cannot (the configuration exposes other commands than the base's,
 * or the base's route cache lacks a carried command or fails its check), and the caller derives
 * from every descriptor instead.
 */
export function deriveCarried(
  config: OwnerConfig,
  extensions: readonly InstalledExtension[],
  fresh: ReadonlyMap<string, ExtensionDescriptor>,
  base: BaseFiles,
): Derivation | undefined {
  const exposure = (c: OwnerConfig) => canonicalJson((c.exposure ?? null) as unknown as JsonValue);
  if (exposure(config) !== exposure(base.config)) return undefined;
  const enabled = extensions.filter((e) => e.enabled);
  const carried = (e: InstalledExtension) => !fresh.has(e.digest) && base.catalog.has(e.digest);
  if (enabled.some((e) => !fresh.has(e.digest) && !carried(e))) return undefined;

  const routings: Routing[] = enabled.map(
    (e) => fresh.get(e.digest) ?? base.catalog.routing(e.digest),
  );
  checkCliOwnership(routings);
  const { groups, routeKey } = claimRoutes(routings);

  const baseTools = new Map<string, IndexedTool[]>();
  for (const tool of base.catalog.tools) {
    const ext = extensionOf(tool[0]);
    const list = baseTools.get(ext);
    if (list === undefined) baseTools.set(ext, [tool]);
    else list.push(tool);
  }
  const baseRow = new Map(base.routes.commands.map((c, i) => [c.path.join(" "), i]));
  const baseLines = base.routes.lines();
  if (baseLines === undefined) return undefined;
  const tools: IndexedTool[] = [];
  const rows: RouteRow[] = [];
  const entries = [];
  for (const e of enabled) {
    const d = fresh.get(e.digest);
    if (d !== undefined) {
      entries.push(catalogEntry(e.digest, d));
      for (const t of toolCommands(config, [{ descriptor: d }])) tools.push(indexedTool(t));
      for (const c of d.commands) rows.push(routeRow(routeOf(d.id, c)));
      continue;
    }
    entries.push(base.catalog.entry(e.digest));
    tools.push(...(baseTools.get(e.id) ?? []));
    for (const c of base.catalog.routing(e.digest).commands) {
      const i = baseRow.get(c.path.join(" "));
      if (i === undefined) return undefined;
      const { text, digest } = baseLines[i]!;
      rows.push({ entry: base.routes.commands[i]!, line: text, digest });
    }
  }
  const keyed = rows.map((r) => [r.entry.path.join(" "), r] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const sorted = keyed.map(([, r]) => r);
  const byId = new Map(enabled.map((e) => [e.id, e]));
  const descriptor = (ext: string) => {
    const e = byId.get(ext)!;
    return fresh.get(e.digest) ?? base.catalog.descriptor(e.digest);
  };
  return {
    catalogText: catalogFileText(entries, tools, routeKey),
    routeKey,
    tools,
    routesText: (generation) => routesFileTextOf(generation, groups, sorted),
    commandOf: (identity) =>
      descriptor(extensionOf(identity)).commands.find((c) => c.identity === identity)!,
    routes: () => buildRoutes(enabled.map((e) => ({ descriptor: descriptor(e.id) }))).routes,
  };
}
