// What a publication derives from its enabled extensions before it commits:
// the routing checks, the tool index, the catalog, the route cache and the
// parts of new packages — here from the descriptors of every extension (a
// first publication, a configuration that changes what is exposed, a base
// without usable files). `_derive-carried.ts` derives the same bytes from a
// base revision's files and only what changed; `checkRouteCache` compares
// the files with a derivation from the store.

import type { CommandSpec } from "@rukh/descriptor";
import { checkCliOwnership, routingOwner } from "../config/index.js";
import {
  type CliRouteTable,
  extensionOf,
  type IndexedTool,
  type InstalledExtension,
  type LoadedExtension,
  type OwnerConfig,
} from "../model/index.js";
import {
  buildRoutes,
  indexedTool,
  type SlugIndex,
  slugIndexOf,
  toolCommands,
} from "../projection/index.js";
import type { RouteCacheRead } from "../routes/index.js";
import { type RouteRow, routesFileTextOf } from "./_cached-routes.js";
import { type Catalog, catalogFileText, catalogLine } from "./_catalog.js";
import { type Part, packagePart } from "./_parts.js";

/** The files and checks a publication derives, before its revision id is known. */
export interface Derivation {
  readonly catalogText: string;
  readonly routeKey: string;
  /** The revision's MCP tools, in catalog order (read from the catalog lines when first asked for). */
  tools(): readonly IndexedTool[];
  /** The MCP tools of one enabled package (by digest). */
  toolsOf(digest: string): readonly IndexedTool[];
  /** The tools' client-fit slugs, as the catalog's header writes them. */
  readonly slugs: SlugIndex;
  /** The parts to write: those of the packages derived afresh. */
  readonly parts: readonly Part[];
  routesText(commandGeneration: number): string;
  commandOf(identity: string): CommandSpec;
  routes(): CliRouteTable;
}

/** A base revision's files, as read and verified. */
export interface BaseFiles {
  readonly config: OwnerConfig;
  readonly catalog: Catalog;
  readonly routes: Extract<RouteCacheRead, { ok: true }>;
}

/** Route rows in path order. */
export const byPath = (rows: RouteRow[]): RouteRow[] => {
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
  const { routes, routeKey, wordKeys } = buildRoutes(loaded);
  const parts = enabled.map((e, i) => packagePart(e.digest, loaded[i]!.descriptor));
  const rows = byPath(parts.flatMap((p) => p.rows));
  const descriptors = new Map(loaded.map((l) => [l.descriptor.id, l.descriptor]));
  const toolsOf = loaded.map((l) => toolCommands(config, [l]).map(indexedTool));
  const toolsByDigest = new Map(enabled.map((e, i) => [e.digest, toolsOf[i]!]));
  const slugs = slugIndexOf(toolsOf.flat().map(([identity]) => identity));
  return {
    catalogText: catalogFileText(
      parts.map((p, i) => catalogLine(p, loaded[i]!.descriptor, toolsOf[i]!)),
      routeKey,
      slugs,
    ),
    routeKey,
    slugs,
    tools: () => toolsOf.flat(),
    toolsOf: (digest) => toolsByDigest.get(digest) ?? [],
    parts,
    routesText: (generation) =>
      routesFileTextOf({
        commandGeneration: generation,
        groups: routes.groups,
        rows,
        partShas: new Map(parts.map((p) => [p.digest, p.sha])),
        wordKeys,
      }),
    commandOf: (identity) =>
      descriptors.get(extensionOf(identity))!.commands.find((c) => c.identity === identity)!,
    routes: () => routes,
  };
}
