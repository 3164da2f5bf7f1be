// What a publication derives from its enabled extensions before it commits:
// the routing checks, the tool index, the catalog, the route cache and the
// parts of new packages. From the descriptors of every extension (a first
// publication, a configuration that changes what is exposed, a base without
// usable files), or carried over: an extension whose package the base already
// held keeps its catalog entry, tool index entries and route cache rows, which
// point at the part written when the package was first published, and only
// the packages being installed are derived afresh — the same bytes either way
// (`checkRouteCache` compares the files with a derivation from the store).

import type { CommandSpec, ExtensionDescriptor } from "@rukh/descriptor";
import { canonicalJson, type JsonValue } from "@rukh/json";
import { type Catalog, type CatalogEntry, catalogEntry, catalogFileText } from "./_catalog.js";
import type { OwnerConfig } from "./_config.js";
import { type Part, packagePart } from "./_parts.js";
import {
  type CliRouteTable,
  type IndexedTool,
  indexedTool,
  type LoadedExtension,
  toolCommands,
} from "./_projection.js";
import type { InstalledExtension } from "./_revision.js";
import { type RouteRow, routesFileTextOf } from "./_routecache.js";
import { buildRoutes, claimRoutes, type Routing } from "./_routes.js";
import { checkCliOwnership, routingOwner } from "./_trust.js";
import type { RouteCacheRead } from "./route-cache.js";

/** The files and checks a publication derives, before its revision id is known. */
export interface Derivation {
  readonly catalogText: string;
  readonly routeKey: string;
  /** The revision's MCP tools, in catalog order. */
  readonly tools: readonly IndexedTool[];
  /** The parts to write: those of the packages derived afresh. */
  readonly parts: readonly Part[];
  routesText(commandGeneration: number): string;
  commandOf(identity: string): CommandSpec;
  routes(): CliRouteTable;
}

const extensionOf = (identity: string) => identity.slice(0, identity.indexOf("/"));
const byPath = (rows: RouteRow[]): RouteRow[] => {
  const keyed = rows.map((r) => [r.entry.path.join(" "), r] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return keyed.map(([, r]) => r);
};

/**
 * The derivation from every enabled extension's descriptor (`loaded`, in
 * revision order); `incumbents` are the ids the base revision already had,
 * which win a CLI group they share with a newcomer.
 */
export function derive(
  config: OwnerConfig,
  extensions: readonly InstalledExtension[],
  loaded: readonly LoadedExtension[],
  incumbents?: ReadonlySet<string>,
): Derivation {
  const enabled = extensions.filter((e) => e.enabled);
  checkCliOwnership(
    loaded.map((l, i) => routingOwner(l.descriptor, enabled[i]!)),
    incumbents,
  );
  const { routes, routeKey } = buildRoutes(loaded);
  const parts = enabled.map((e, i) => packagePart(e.digest, loaded[i]!.descriptor));
  const rows = byPath(parts.flatMap((p) => p.rows));
  const descriptors = new Map(loaded.map((l) => [l.descriptor.id, l.descriptor]));
  const tools = toolCommands(config, loaded).map(indexedTool);
  return {
    catalogText: catalogFileText(
      parts.map((p, i) => catalogEntry(p, loaded[i]!.descriptor)),
      tools,
      routeKey,
    ),
    routeKey,
    tools,
    parts,
    routesText: (generation) =>
      routesFileTextOf(
        generation,
        routes.groups,
        rows,
        new Map(parts.map((p) => [p.digest, p.sha])),
      ),
    commandOf: (identity) =>
      descriptors.get(extensionOf(identity))!.commands.find((c) => c.identity === identity)!,
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
 * or the base's route cache lacks a carried command), and the caller derives
 * from every descriptor instead. `incumbents` as for {@link derive}.
 */
export function deriveCarried(
  config: OwnerConfig,
  extensions: readonly InstalledExtension[],
  fresh: ReadonlyMap<string, ExtensionDescriptor>,
  base: BaseFiles,
  incumbents?: ReadonlySet<string>,
): Derivation | undefined {
  const exposure = (c: OwnerConfig) => canonicalJson((c.exposure ?? null) as unknown as JsonValue);
  if (exposure(config) !== exposure(base.config)) return undefined;
  const enabled = extensions.filter((e) => e.enabled);
  if (enabled.some((e) => !fresh.has(e.digest) && !base.catalog.has(e.digest))) return undefined;

  const routings: Routing[] = enabled.map(
    (e) => fresh.get(e.digest) ?? base.catalog.routing(e.digest),
  );
  checkCliOwnership(
    routings.map((r, i) => routingOwner(r, enabled[i]!)),
    incumbents,
  );
  const { groups, routeKey } = claimRoutes(routings);

  const baseTools = new Map<string, IndexedTool[]>();
  for (const tool of base.catalog.tools) {
    const ext = extensionOf(tool[0]);
    const list = baseTools.get(ext);
    if (list === undefined) baseTools.set(ext, [tool]);
    else list.push(tool);
  }
  const baseRow = new Map(base.routes.commands.map((c, i) => [c.path.join(" "), i]));
  const tools: IndexedTool[] = [];
  const rows: RouteRow[] = [];
  const entries: CatalogEntry[] = [];
  const parts: Part[] = [];
  for (const e of enabled) {
    const d = fresh.get(e.digest);
    if (d !== undefined) {
      const part = packagePart(e.digest, d);
      parts.push(part);
      entries.push(catalogEntry(part, d));
      for (const t of toolCommands(config, [{ descriptor: d }])) tools.push(indexedTool(t));
      rows.push(...part.rows);
      continue;
    }
    entries.push(base.catalog.entry(e.digest));
    tools.push(...(baseTools.get(e.id) ?? []));
    for (const c of base.catalog.routing(e.digest).commands) {
      const i = baseRow.get(c.path.join(" "));
      const row = i === undefined ? undefined : base.routes.row(i);
      if (i === undefined || row?.part !== e.digest) return undefined;
      rows.push({ entry: base.routes.commands[i]!, ...row });
    }
  }
  const sorted = byPath(rows);
  const byId = new Map(enabled.map((e) => [e.id, e]));
  const descriptor = (ext: string) => {
    const e = byId.get(ext)!;
    return fresh.get(e.digest) ?? base.catalog.descriptor(e.digest);
  };
  return {
    catalogText: catalogFileText(entries, tools, routeKey),
    routeKey,
    tools,
    parts,
    routesText: (generation) =>
      routesFileTextOf(generation, groups, sorted, new Map(entries.map((e) => [e[0], e[1]]))),
    commandOf: (identity) =>
      descriptor(extensionOf(identity)).commands.find((c) => c.identity === identity)!,
    routes: () => buildRoutes(enabled.map((e) => ({ descriptor: descriptor(e.id) }))).routes,
  };
}
