// A publication on a base revision, derived from the base's files and what
// changed: the same bytes `derive` gives from every descriptor, at the cost
// of the change. Only the first words a change touches (those of every
// path, alias and group of a package installed, removed or replaced) are
// looked at again: their route cache buckets are rebuilt, and the packages
// already claiming them are checked with the new ones. Every other bucket,
// and the catalog line of every package kept, is copied as written (each
// bucket checked against its digest).

import type { ExtensionDescriptor } from "@rukh/descriptor";
import { canonicalJson, type JsonValue } from "@rukh/json";
import { checkCliOwnership, routingOwner } from "../config/index.js";
import {
  extensionOf,
  type IndexedTool,
  type InstalledExtension,
  type OwnerConfig,
  type Routing,
} from "../model/index.js";
import {
  buildRoutes,
  carriedSlugIndex,
  claimRoutes,
  indexedTool,
  routeKeyOfWords,
  routingOf,
  slugIndexOf,
  toolCommands,
} from "../projection/index.js";
import {
  bucketLine,
  firstWordsOf,
  type RouteBucketLine,
  type RouteRow,
  type RouteTop,
  routesFileText,
  topOf,
} from "./_cached-routes.js";
import { catalogFileText, catalogLine } from "./_catalog.js";
import { type BaseFiles, byPath, type Derivation } from "./_derive.js";
import { packagePart } from "./_parts.js";

const pathKey = (p: readonly string[]) => p.join(" ");
const byKey =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : 1;

/** Every first word a package's paths, aliases and groups start with. */
function wordsOf(r: Routing, into: Set<string>): void {
  for (const g of r.groups) into.add(g.path[0]!);
  for (const c of r.commands) {
    into.add(c.path[0]!);
    for (const a of c.aliases) into.add(a[0]!);
  }
}

/** What {@link deriveCarried} derives from: the configuration and extensions to publish, the packages read fresh and the base's files. */
export interface CarryRequest {
  readonly config: OwnerConfig;
  readonly extensions: readonly InstalledExtension[];
  /** The descriptors to derive anew, by package digest. */
  readonly fresh: ReadonlyMap<string, ExtensionDescriptor>;
  readonly base: BaseFiles;
  readonly incumbents?: ReadonlySet<string>;
}

/**
 * The derivation that carries over from `base` every enabled extension whose
 * package it held, deriving only those in `fresh` (by digest); `undefined`
 * when it cannot (the configuration exposes other commands than the base's,
 * or an enabled package is neither fresh nor in the base's catalog), and the
 * caller derives from every descriptor instead. Throws what a base file that
 * fails its digest throws; `incumbents` as for `derive`.
 */
export function deriveCarried({
  config,
  extensions,
  fresh,
  base,
  incumbents,
}: CarryRequest): Derivation | undefined {
  const exposure = (c: OwnerConfig) => canonicalJson((c.exposure ?? null) as unknown as JsonValue);
  if (exposure(config) !== exposure(base.config)) return undefined;
  const enabled = extensions.filter((e) => e.enabled);
  if (enabled.some((e) => !fresh.has(e.digest) && !base.catalog.has(e.digest))) return undefined;

  const kept = new Set(enabled.filter((e) => !fresh.has(e.digest)).map((e) => e.digest));
  const added = enabled.filter((e) => fresh.has(e.digest));
  const freshRouting = new Map(added.map((e) => [e.digest, routingOf(fresh.get(e.digest)!)]));
  // The words a change touches: those of every package added, and of every one gone.
  const touched = new Set<string>();
  for (const r of freshRouting.values()) wordsOf(r, touched);
  for (const d of base.catalog.digests) if (!kept.has(d)) wordsOf(base.catalog.routing(d), touched);

  // The kept packages that claim a touched word: through its bucket and the groups under it.
  const neighbours = new Set<string>();
  const baseRows = new Map<string, RouteRow[]>();
  for (const w of touched) {
    const rows: RouteRow[] = [];
    const bucket = base.routes.bucket(w);
    if (bucket !== undefined)
      bucket.commands.forEach((entry, i) => {
        const row = bucket.row(i);
        if (!kept.has(row.part)) return;
        neighbours.add(row.part);
        rows.push({ entry, ...row });
      });
    baseRows.set(w, rows);
  }
  const digestOf = new Map(enabled.map((e) => [e.id, e.digest]));
  for (const g of base.routes.groups)
    if (touched.has(g.path[0]!))
      for (const id of g.extensions) {
        const d = digestOf.get(id);
        if (d !== undefined && kept.has(d)) neighbours.add(d);
      }

  // Claims can meet only under a touched word: the new packages and their
  // neighbours are checked together, as the whole set would be.
  const scope = enabled.filter((e) => freshRouting.has(e.digest) || neighbours.has(e.digest));
  const routingAt = (d: string) => freshRouting.get(d) ?? base.catalog.routing(d);
  const scoped = scope.map((e) => routingAt(e.digest));
  checkCliOwnership(
    scoped.map((r, i) => routingOwner(r, scope[i]!)),
    incumbents,
  );
  const claimed = claimRoutes(scoped);

  const parts = added.map((e) => packagePart(e.digest, fresh.get(e.digest)!));
  const partShas = new Map<string, string>(parts.map((p) => [p.digest, p.sha]));
  for (const d of neighbours) partShas.set(d, base.catalog.partSha(d));
  for (const p of parts)
    for (const r of p.rows) for (const w of firstWordsOf(r.entry)) baseRows.get(w)!.push(r);

  const rebuilt: RouteBucketLine[] = [];
  const tops = new Map<string, RouteTop>();
  for (const [w, rows] of baseRows) {
    if (rows.length === 0) continue;
    const sorted = byPath(rows);
    rebuilt.push(bucketLine(w, sorted, partShas, claimed.wordKeys.get(w)!));
    for (const r of sorted) {
      const top = topOf(r);
      if (top !== undefined && touched.has(top.word)) tops.set(pathKey(top.path), top);
    }
  }
  const buckets = [...base.routes.lines().filter((l) => !touched.has(l.word)), ...rebuilt].sort(
    byKey((b) => b.word),
  );
  const allTops = [...base.routes.tops.filter((t) => !touched.has(t.word)), ...tops.values()].sort(
    byKey((t) => pathKey(t.path)),
  );
  const groups = [
    ...base.routes.groups.filter((g) => !touched.has(g.path[0]!)),
    ...claimed.groups.filter((g) => touched.has(g.path[0]!)),
  ].sort(byKey((g) => pathKey(g.path)));
  const routeKey = routeKeyOfWords(new Map(buckets.map((b) => [b.word, b.key])));

  const freshTools = new Map<string, IndexedTool[]>(
    added.map((e) => [
      e.digest,
      toolCommands(config, [{ descriptor: fresh.get(e.digest)! }]).map(indexedTool),
    ]),
  );
  const lines = new Map(
    parts.map((p) => [p.digest, catalogLine(p, fresh.get(p.digest)!, freshTools.get(p.digest)!)]),
  );
  const tools = () =>
    enabled.flatMap((e) => freshTools.get(e.digest) ?? base.catalog.toolsOf(e.digest));
  // The base's slugs less the tools of every package gone or derived anew, plus the new tools'.
  const identities = (ts: Iterable<readonly IndexedTool[]>) => [...ts].flat().map(([i]) => i);
  const baseSlugs = base.catalog.slugIndex();
  const slugs =
    (baseSlugs &&
      carriedSlugIndex(
        baseSlugs,
        identities(base.catalog.digests.filter((d) => !kept.has(d)).map(base.catalog.toolsOf)),
        identities(freshTools.values()),
      )) ??
    slugIndexOf(identities([tools()]));
  const byId = new Map(enabled.map((e) => [e.id, e]));
  const descriptor = (ext: string) => {
    const e = byId.get(ext)!;
    return fresh.get(e.digest) ?? base.catalog.descriptor(e.digest);
  };
  return {
    catalogText: catalogFileText(
      enabled.map((e) => lines.get(e.digest) ?? base.catalog.line(e.digest)),
      routeKey,
      slugs,
    ),
    routeKey,
    slugs,
    tools,
    toolsOf: (digest) => freshTools.get(digest) ?? base.catalog.toolsOf(digest),
    parts,
    routesText: (generation) => routesFileText(generation, groups, allTops, buckets),
    commandOf: (identity) =>
      descriptor(extensionOf(identity)).commands.find((c) => c.identity === identity)!,
    routes: () => buildRoutes(enabled.map((e) => ({ descriptor: descriptor(e.id) }))).routes,
  };
}
