// What a state directory's revisions are read as (RevisionProjections):
// their descriptors (verified against their digests once per process), route
// keys, MCP projections under the profile's naming or an endpoint's, and
// what a publication on a revision derives; each kept in a small cache.
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { profileNaming, sameNaming } from "../config/index.js";
import {
  type CliRouteTable,
  type InstalledExtension,
  type LoadedExtension,
  type OwnerConfig,
  ProfileError,
  type ProfileRevision,
  type ToolNaming,
  type ToolProjection,
  type VerifiedPackage,
} from "../model/index.js";
import { corruptExtension, loadStoredPackage } from "../package/index.js";
import {
  buildProjection,
  buildRoutes,
  projectionOf,
  routeKeyOfPublished,
} from "../projection/index.js";
import { readRouteCache } from "../routes/index.js";
import { cachedRoutes } from "./_cached-routes.js";
import { type Catalog, catalogProjection, readCatalog } from "./_catalog.js";
import { type Derivation, derive } from "./_derive.js";
import { deriveCarried } from "./_derive-carried.js";
import type { PublishedRevisions } from "./_published-revisions.js";

const PROJECTION_CACHE = 8;

/** Packages being published, by digest: not in the store yet. */
export type Pending = ReadonlyMap<string, VerifiedPackage>;

/** What a publication on a base derives, and the base catalog it read. */
export type BaseDerivation = Derivation & { readonly base?: Catalog };

/** A publication's base and what it would publish, for {@link RevisionProjections.derive}. */
export interface DeriveRequest {
  readonly base: string | null;
  readonly baseRevision: ProfileRevision | undefined;
  readonly config: OwnerConfig;
  readonly extensions: readonly InstalledExtension[];
  readonly pending: Pending;
}

function bounded<V>(cache: Map<string, V>, key: string, value: V): V {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > PROJECTION_CACHE) cache.delete(cache.keys().next().value!);
  return value;
}

/** The projections of one state directory's revisions, with their caches. */
export class RevisionProjections {
  readonly #root: string;
  readonly #revisions: PublishedRevisions;
  readonly #descriptors = new Map<string, ExtensionDescriptor>();
  readonly #routeKeys = new Map<string, string>();
  readonly #profile = new Map<string, ToolProjection>();
  /** Projections under an endpoint's naming, keyed by revision id and naming. */
  readonly #endpoint = new Map<string, ToolProjection>();

  constructor(root: string, revisions: PublishedRevisions) {
    this.#root = root;
    this.#revisions = revisions;
  }

  /** An installed extension's descriptor: cached, pending, else verified from the store. */
  async descriptor(entry: InstalledExtension, pending?: Pending): Promise<ExtensionDescriptor> {
    let d = this.#descriptors.get(entry.digest) ?? pending?.get(entry.digest)?.descriptor;
    if (d === undefined) {
      try {
        d = await loadStoredPackage(this.#root, entry.digest);
      } catch (e) {
        if (!(e instanceof ProfileError) || e.code !== "store_corrupt") throw e;
        // Name the extension, and the repair, not only the digest.
        throw corruptExtension(entry, e);
      }
      this.#descriptors.set(entry.digest, d);
    }
    if (d.id !== entry.id || d.version !== entry.version || d.publisher !== entry.publisher)
      throw new ProfileError(
        "store_corrupt",
        `stored package ${entry.digest} is not ${entry.id}@${entry.version} by ${entry.publisher}`,
      );
    return d;
  }

  /**
   * The enabled extensions' descriptors: from `pending` (being installed),
   * then from a revision's catalog, else read and verified from the store.
   */
  async loaded(
    extensions: readonly InstalledExtension[],
    pending?: Pending,
    catalog?: ReadonlyMap<string, ExtensionDescriptor>,
  ): Promise<LoadedExtension[]> {
    const out: LoadedExtension[] = [];
    for (const e of extensions)
      if (e.enabled)
        out.push({
          descriptor:
            pending?.get(e.digest)?.descriptor ??
            catalog?.get(e.digest) ??
            (await this.descriptor(e, pending)),
        });
    return out;
  }

  /** The route key of a revision (`null`: the empty state). */
  async routeKey(id: string | null, catalog?: Catalog): Promise<string> {
    if (id === null) return buildRoutes([]).routeKey;
    let key = this.#routeKeys.get(id);
    if (key === undefined) {
      const enabled = this.#revisions.read(id).extensions.filter((e) => e.enabled);
      key =
        catalog?.routeKey ??
        routeKeyOfPublished(
          catalog !== undefined
            ? enabled.map((e) => catalog.routing(e.digest))
            : (await this.loaded(enabled)).map((l) => l.descriptor),
        );
      this.#routeKeys.set(id, key);
    }
    return key;
  }

  /**
   * What a publication on `base` derives: carried over from the base's
   * catalog and route cache where it can be, else from every enabled
   * extension's descriptor (the base catalog's, else verified from the
   * store). `base` is the base catalog the derivation read, if any.
   */
  async derive(request: DeriveRequest): Promise<BaseDerivation> {
    const { base, baseRevision, config, extensions: list, pending } = request;
    const catalog =
      base === null || baseRevision === undefined
        ? undefined
        : await readCatalog(this.#root, base, baseRevision);
    const incumbents = new Set(baseRevision?.extensions.filter((e) => e.enabled).map((e) => e.id));
    if (catalog !== undefined && base !== null && baseRevision !== undefined) {
      const routes = readRouteCache(this.#root, base);
      if (routes.ok) {
        const fresh = new Map<string, ExtensionDescriptor>();
        for (const p of pending.values()) fresh.set(p.digest, p.descriptor);
        for (const e of list)
          if (e.enabled && !catalog.has(e.digest) && !fresh.has(e.digest))
            fresh.set(e.digest, await this.descriptor(e));
        let carried: Derivation | undefined;
        try {
          carried = deriveCarried({
            config,
            extensions: list,
            fresh,
            base: { config: baseRevision.config, catalog, routes },
            incumbents,
          });
        } catch (e) {
          // A base bucket or part that fails its digest is only a cache: derive from the descriptors.
          if (e instanceof ProfileError && e.code !== "invalid_state") throw e;
        }
        if (carried !== undefined) return { ...carried, base: catalog };
      }
    }
    const loaded = await this.loaded(list, pending, catalog?.all());
    return {
      ...derive(config, list, loaded, incumbents),
      ...(catalog !== undefined && { base: catalog }),
    };
  }

  /** A revision's CLI route table from its packages, each verified against its digest. */
  async verifiedRoutes(id: string): Promise<CliRouteTable> {
    return buildRoutes(await this.loaded(this.#revisions.read(id).extensions)).routes;
  }

  /** A revision's projection (under an endpoint's naming when given), cached by id. */
  async projection(rid: string, naming?: ToolNaming): Promise<ToolProjection> {
    const cached = this.#profile.get(rid);
    if (cached !== undefined && (naming === undefined || sameNaming(cached.naming, naming)))
      return cached;
    const revision = this.#revisions.read(rid);
    if (naming !== undefined && !sameNaming(naming, profileNaming(revision.config)))
      return this.#endpointProjection(rid, revision, naming);
    const projection = await this.#build(rid, revision, undefined, (routeKey) =>
      this.#routeKeys.set(rid, routeKey),
    );
    return bounded(this.#profile, rid, projection);
  }

  /**
   * A revision's projection under the profile's naming, built at the first
   * call: from its catalog, read and checked now, or, when it has none that
   * reads, built now as {@link projection} builds it. A publication that
   * changes nothing returns this, so that a caller who never reads the
   * projection (a CLI install) does not build one.
   */
  async deferredProjection(rid: string): Promise<() => ToolProjection> {
    const cached = this.#profile.get(rid);
    if (cached !== undefined) return () => cached;
    const revision = this.#revisions.read(rid);
    const catalog = await readCatalog(this.#root, rid, revision);
    if (catalog === undefined) {
      const built = await this.projection(rid);
      return () => built;
    }
    let built: ToolProjection | undefined;
    return () =>
      (built ??= bounded(this.#profile, rid, this.#fromCatalog(rid, revision, catalog, undefined)));
  }

  /** Remembers what a publication of this process verified and derived. */
  published(
    id: string,
    routeKey: string,
    packages: Iterable<{ readonly digest: string; readonly descriptor: ExtensionDescriptor }>,
  ): void {
    this.#routeKeys.set(id, routeKey);
    for (const pkg of packages) this.#descriptors.set(pkg.digest, pkg.descriptor);
  }

  /** Keeps a projection built by a publication. */
  remember(id: string, projection: ToolProjection): ToolProjection {
    return bounded(this.#profile, id, projection);
  }

  /** Forgets what garbage collection removed. */
  forget(revisions: readonly string[], packages: readonly string[]): void {
    for (const id of revisions) {
      this.#routeKeys.delete(id);
      this.#profile.delete(id);
      for (const key of this.#endpoint.keys())
        if (key.startsWith(`${id}\0`)) this.#endpoint.delete(key);
    }
    for (const digest of packages) this.#descriptors.delete(digest);
  }

  /**
   * A revision's projection under `naming` (the profile's when undefined):
   * from its catalog, or, for a revision without one, from the verified
   * store. `keep` learns the route key when the routes are built.
   */
  async #build(
    rid: string,
    revision: ProfileRevision,
    naming: ToolNaming | undefined,
    keep: (routeKey: string) => void,
  ): Promise<ToolProjection> {
    const catalog = await readCatalog(this.#root, rid, revision);
    if (catalog !== undefined) return this.#fromCatalog(rid, revision, catalog, naming, keep);
    const loaded = await this.loaded(revision.extensions);
    return buildProjection(projectionOf(rid, revision, naming), loaded, () => {
      const built = buildRoutes(loaded);
      keep(built.routeKey);
      return built.routes;
    });
  }

  /** A revision's projection from its catalog (and route cache, when the routes are read). */
  #fromCatalog(
    rid: string,
    revision: ProfileRevision,
    catalog: Catalog,
    naming: ToolNaming | undefined,
    keep: (routeKey: string) => void = (routeKey) => this.#routeKeys.set(rid, routeKey),
  ): ToolProjection {
    return catalogProjection({
      id: rid,
      revision,
      catalog,
      onRouteKey: keep,
      cached: () => cachedRoutes(this.#root, rid),
      naming,
    });
  }

  /** A revision's projection under an endpoint's naming, cached apart from the profile's. */
  async #endpointProjection(
    rid: string,
    revision: ProfileRevision,
    naming: ToolNaming,
  ): Promise<ToolProjection> {
    const key = `${rid}\0${naming.namespace}\0${naming.style}`;
    const cached = this.#endpoint.get(key);
    if (cached !== undefined) return cached;
    return bounded(this.#endpoint, key, await this.#build(rid, revision, naming, () => {}));
  }
}
