import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { link, mkdir, open, readFile, realpath, rename, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { canonicalJson, fingerprint, type JsonValue, parseJson, sha256Hex } from "@rukh/json";
import { readBounded } from "./_bounded.js";
import { type Catalog, catalogProjection, readCatalog } from "./_catalog.js";
import { effectiveLimits, parseOwnerConfig, presetNamed, validateOwnerConfig } from "./_config.js";
import { temporaryName } from "./_debris.js";
import { type Derivation, derive } from "./_derive.js";
import { deriveCarried } from "./_derive-carried.js";
import { type LinkRefresh, linkedPackage, staleLinks } from "./_devlink.js";
import { profileNaming, sameNaming } from "./_endpoints.js";
import { ioError, ProfileError } from "./_errors.js";
import { collect, type GcOptions, type GcReport } from "./_gc.js";
import { checkImports } from "./_imports.js";
import { REVISION_MAX_BYTES } from "./_limits.js";
import { type LockMechanism, SYSTEM_LOCKS, stateLocks } from "./_lock.js";
import {
  type CliRouteTable,
  type InstalledExtension,
  type LoadedExtension,
  type OwnerConfig,
  type ProfileRevision,
  REVISION_ID,
  type ToolNaming,
  type ToolProjection,
  type VerifiedPackage,
} from "./_model.js";
import {
  fsyncDir,
  readLimits,
  readPackageSource,
  storePackage,
  verifyPackage,
} from "./_package.js";
import type { Part } from "./_parts.js";
import {
  buildProjection,
  checkCompactNames,
  checkToolSizes,
  hasCompactNames,
  projectionFromIndex,
} from "./_projection.js";
import { devLinkIds, validateRevision } from "./_revision.js";
import { cachedRoutes } from "./_routecache.js";
import { buildRoutes, routeKeyOfPublished } from "./_routes.js";
import { corruptExtension } from "./_storecheck.js";
import { loadStoredPackage } from "./_stored-descriptor.js";
import { checkNamespaces, checkSource, checkVersionChange } from "./_trust.js";
import { PART_MAX_BYTES, partPath, readRouteCache, routesDigestOf } from "./route-cache.js";

/** Whether two revisions' extension lists are the same, entry by entry. */
function sameExtensions(
  a: readonly InstalledExtension[],
  b: readonly InstalledExtension[],
): boolean {
  return (
    a.length === b.length &&
    a.every((e, i) => {
      const o = b[i]!;
      return (
        e.id === o.id &&
        e.version === o.version &&
        e.publisher === o.publisher &&
        e.digest === o.digest &&
        e.enabled === o.enabled &&
        e.dev === o.dev
      );
    })
  );
}

/** `config` with `<id>/*` added to preset `preset`'s commands (once). */
function allowExtension(config: OwnerConfig, preset: string, id: string): OwnerConfig {
  const p = presetNamed(config, preset);
  if (p === undefined)
    throw new ProfileError("invalid_config", `preset "${preset}" is not defined in /presets`);
  const pattern = `${id}/*`;
  if (p.commands.includes(pattern)) return config;
  return {
    ...config,
    presets: { ...config.presets, [preset]: { ...p, commands: [...p.commands, pattern] } },
  };
}

/** One change applied by {@link StateDirectory.apply}. */
export type ProfileChange =
  | {
      readonly op: "install";
      readonly source: string;
      /**
       * A preset that gets `<extension id>/*` when this installs a new
       * extension (not an upgrade), in the same publication: there is no
       * moment at which it is installed but not allowed.
       */
      readonly allowIn?: string;
      /** Install a version lower than the installed one (otherwise `downgrade`). */
      readonly allowDowngrade?: boolean;
    }
  | {
      /** A development link: an unsigned package directory, for the local user only (see `InstalledExtension.dev`). */
      readonly op: "link";
      readonly source: string;
      /** As for `install`: a preset that gets `<extension id>/*` when this links a new extension. */
      readonly allowIn?: string;
      /** Refuse the link (`invalid_link`) unless the directory declares this id. */
      readonly expectId?: string;
    }
  | { readonly op: "remove"; readonly id: string }
  | { readonly op: "enable"; readonly id: string }
  | { readonly op: "disable"; readonly id: string }
  | { readonly op: "setConfig"; readonly config: OwnerConfig | Uint8Array | string }
  | { readonly op: "rollback"; readonly to: string };

/** Options of a publication. */
export interface PublishOptions {
  /**
   * The revision the change starts from (`null`: the empty state). Defaults to
   * the active revision at the start of the call. The commit fails with
   * `conflict` if `active` no longer names it.
   */
  readonly base?: string | null;
}

/** What a successful publication returns. */
export interface Publication {
  readonly revisionId: string;
  readonly revision: ProfileRevision;
  readonly projection: ToolProjection;
  /** False when the change changed nothing and the active revision stays as it was. */
  readonly published: boolean;
}

/** Options of a {@link StateDirectory}. */
export interface StateDirectoryOptions {
  /** How long to wait for the publication lock; default 10,000 ms. */
  readonly lockTimeoutMs?: number;
  /** Clock for `createdAt`; default `() => new Date()`. */
  readonly now?: () => Date;
  /** How this directory's locks are held; default {@link SYSTEM_LOCKS} (tests run both). */
  readonly locks?: LockMechanism;
}

const ACTIVE_MAX_BYTES = 128;
const PROJECTION_CACHE = 8;

function errno(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

/**
 * A Rukh state directory: owner configuration and installed releases inside
 * immutable profile revisions, a content-addressed store and the `active`
 * pointer. Every change publishes a new revision atomically, guarded by a
 * compare-and-swap on the revision it started from. Descriptors are verified
 * against their digest once per instance and cached.
 *
 * @example
 * const home = new StateDirectory(resolveStateDir());
 * await home.setConfig(readFileSync("owner.json"));
 * await home.install("./acme-files.tgz");
 * const projection = await home.projection();
 */
export class StateDirectory {
  readonly root: string;
  /** How this directory's locks are held, by this instance and every core opened on it. */
  readonly locks: LockMechanism;
  readonly #lockTimeoutMs: number;
  readonly #now: () => Date;
  readonly #revisions = new Map<string, ProfileRevision>();
  readonly #descriptors = new Map<string, ExtensionDescriptor>();
  readonly #routeKeys = new Map<string, string>();
  readonly #projections = new Map<string, ToolProjection>();
  /** Projections under an endpoint's naming, keyed by revision id and naming. */
  readonly #endpointProjections = new Map<string, ToolProjection>();

  constructor(root: string, options: StateDirectoryOptions = {}) {
    this.root = root;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.#now = options.now ?? (() => new Date());
    this.locks = options.locks ?? SYSTEM_LOCKS;
  }

  /**
   * The id named by `active`, or `null` before the first publication.
   *
   * @example
   * const id = await home.activeRevisionId();
   */
  async activeRevisionId(): Promise<string | null> {
    let bytes: ReturnType<typeof readBounded>;
    try {
      bytes = readBounded(join(this.root, "active"), ACTIVE_MAX_BYTES);
    } catch (e) {
      throw ioError("cannot read active", e);
    }
    if (bytes === undefined) return null;
    const text = bytes === "large" ? "" : bytes.toString("latin1").trimEnd();
    if (!REVISION_ID.test(text))
      throw new ProfileError("invalid_state", "the active file does not name a revision id");
    return text;
  }

  /**
   * Reads and verifies a revision file (its content must hash to its id).
   *
   * @example
   * const rev = await home.readRevision(id);
   */
  async readRevision(id: string): Promise<ProfileRevision> {
    const cached = this.#revisions.get(id);
    if (cached !== undefined) return cached;
    if (!REVISION_ID.test(id))
      throw new ProfileError("unknown_revision", `"${id}" is not a revision id`);
    let read: ReturnType<typeof readBounded>;
    try {
      read = readBounded(join(this.root, "revisions", `${id}.json`), REVISION_MAX_BYTES);
    } catch (e) {
      throw ioError(`cannot read revision ${id}`, e);
    }
    if (read === undefined)
      throw new ProfileError("unknown_revision", `revision ${id} does not exist`);
    if (read === "large")
      throw new ProfileError(
        "invalid_revision",
        `revision ${id} is larger than ${REVISION_MAX_BYTES} bytes`,
      );
    const bytes = read;
    let value: JsonValue;
    if (sha256Hex(bytes) === id)
      // The bytes are the canonical text the id is the hash of: a plain parse reads exactly it.
      value = JSON.parse(bytes.toString("utf8"));
    else {
      const parsed = parseJson(bytes, {
        limits: { maxBytes: REVISION_MAX_BYTES, maxNodes: 2_000_000 },
      });
      if (!parsed.ok)
        throw new ProfileError("invalid_revision", `revision ${id} is not strict JSON`, {
          cause: parsed.error,
        });
      if (fingerprint(parsed.value) !== id)
        throw new ProfileError("invalid_revision", `revision ${id} does not hash to its id`);
      value = parsed.value;
    }
    const v = validateRevision(value);
    if (!v.ok)
      throw new ProfileError(
        "invalid_revision",
        `revision ${id} is invalid: ${v.issues[0]?.path} ${v.issues[0]?.message}`,
        { issues: v.issues },
      );
    this.#revisions.set(id, v.value);
    return v.value;
  }

  /**
   * Revisions from the active one back through its parents, newest first.
   *
   * @example
   * for (const { id, revision } of await home.history()) console.log(revision.sequence, id);
   */
  async history(limit = 100): Promise<{ id: string; revision: ProfileRevision }[]> {
    const out: { id: string; revision: ProfileRevision }[] = [];
    let id = await this.activeRevisionId();
    while (id !== null && out.length < limit) {
      let revision: ProfileRevision;
      try {
        revision = await this.readRevision(id);
      } catch (e) {
        // A parent that garbage collection removed ends the history there.
        if (out.length > 0 && e instanceof ProfileError && e.code === "unknown_revision") break;
        throw e;
      }
      out.push({ id, revision });
      id = revision.parent;
    }
    return out;
  }

  async #descriptor(
    entry: InstalledExtension,
    pending?: ReadonlyMap<string, VerifiedPackage>,
  ): Promise<ExtensionDescriptor> {
    let d = this.#descriptors.get(entry.digest) ?? pending?.get(entry.digest)?.descriptor;
    if (d === undefined) {
      try {
        d = await loadStoredPackage(this.root, entry.digest);
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
  async #loaded(
    extensions: readonly InstalledExtension[],
    pending?: ReadonlyMap<string, VerifiedPackage>,
    catalog?: ReadonlyMap<string, ExtensionDescriptor>,
  ): Promise<LoadedExtension[]> {
    const out: LoadedExtension[] = [];
    for (const e of extensions)
      if (e.enabled)
        out.push({
          descriptor:
            pending?.get(e.digest)?.descriptor ??
            catalog?.get(e.digest) ??
            (await this.#descriptor(e, pending)),
        });
    return out;
  }

  async #routeKey(id: string | null, catalog?: Catalog): Promise<string> {
    if (id === null) return buildRoutes([]).routeKey;
    let key = this.#routeKeys.get(id);
    if (key === undefined) {
      const enabled = (await this.readRevision(id)).extensions.filter((e) => e.enabled);
      key =
        catalog?.routeKey ??
        routeKeyOfPublished(
          catalog !== undefined
            ? enabled.map((e) => catalog.routing(e.digest))
            : (await this.#loaded(enabled)).map((l) => l.descriptor),
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
  async #derive(
    base: string | null,
    baseRevision: ProfileRevision | undefined,
    config: OwnerConfig,
    list: readonly InstalledExtension[],
    pending: ReadonlyMap<string, VerifiedPackage>,
  ): Promise<Derivation & { readonly base?: Catalog }> {
    const catalog =
      base === null || baseRevision === undefined
        ? undefined
        : await readCatalog(this.root, base, baseRevision);
    const incumbents = new Set(baseRevision?.extensions.filter((e) => e.enabled).map((e) => e.id));
    if (catalog !== undefined && base !== null && baseRevision !== undefined) {
      const routes = readRouteCache(this.root, base);
      if (routes.ok) {
        const fresh = new Map<string, ExtensionDescriptor>();
        for (const p of pending.values()) fresh.set(p.digest, p.descriptor);
        for (const e of list)
          if (e.enabled && !catalog.has(e.digest) && !fresh.has(e.digest))
            fresh.set(e.digest, await this.#descriptor(e));
        let carried: Derivation | undefined;
        try {
          carried = deriveCarried(
            config,
            list,
            fresh,
            {
              config: baseRevision.config,
              catalog,
              routes,
            },
            incumbents,
          );
        } catch (e) {
          // A base bucket or part that fails its digest is only a cache: derive from the descriptors.
          if (e instanceof ProfileError && e.code !== "invalid_state") throw e;
        }
        if (carried !== undefined) return { ...carried, base: catalog };
      }
    }
    const all = catalog?.all();
    const loaded = await this.#loaded(list, pending, all);
    return {
      ...derive(config, list, loaded, incumbents),
      ...(catalog !== undefined && { base: catalog }),
    };
  }

  /**
   * The CLI route table of a revision (default: the active one) built from
   * its enabled packages, each read from the store and verified against its
   * digest — never from the route cache, the catalog or the parts. What the
   * CLI falls back to when those are damaged; a modified package fails with
   * `store_corrupt`.
   *
   * @example
   * const { commands } = await home.verifiedRoutes();
   */
  async verifiedRoutes(id?: string): Promise<CliRouteTable> {
    const rid = id ?? (await this.activeRevisionId());
    if (rid === null) return { commands: [], groups: [] };
    return buildRoutes(await this.#loaded((await this.readRevision(rid)).extensions)).routes;
  }

  #remember(id: string, projection: ToolProjection): void {
    this.#projections.delete(id);
    this.#projections.set(id, projection);
    while (this.#projections.size > PROJECTION_CACHE)
      this.#projections.delete(this.#projections.keys().next().value!);
  }

  /**
   * The projection of a revision (default: the active one), cached by id.
   * It is built from the revision's catalog (the descriptors validated at
   * publication, bound to the revision by digest); only without a usable
   * catalog are the enabled packages read from the store and verified
   * against their digests (a modified store then fails with
   * `store_corrupt`). Running a command always verifies its own package.
   *
   * @example
   * const tool = resolveTool(await home.projection(), name);
   */
  async projection(id?: string, naming?: ToolNaming): Promise<ToolProjection> {
    const rid = id ?? (await this.activeRevisionId());
    if (rid === null)
      throw new ProfileError(
        "no_active_revision",
        "nothing has been published in this state directory yet",
      );
    const cached = this.#projections.get(rid);
    if (cached !== undefined && (naming === undefined || sameNaming(cached.naming, naming)))
      return cached;
    const revision = await this.readRevision(rid);
    if (naming !== undefined && !sameNaming(naming, profileNaming(revision.config)))
      return this.#endpointProjection(rid, revision, naming);
    const projection = await this.#build(rid, revision, undefined, (routeKey) =>
      this.#routeKeys.set(rid, routeKey),
    );
    this.#remember(rid, projection);
    return projection;
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
    const catalog = await readCatalog(this.root, rid, revision);
    if (catalog !== undefined)
      return catalogProjection(
        rid,
        revision,
        catalog,
        keep,
        () => cachedRoutes(this.root, rid),
        naming,
      );
    const loaded = await this.#loaded(revision.extensions);
    return buildProjection(
      rid,
      revision.commandGeneration,
      revision.config,
      devLinkIds(revision.extensions),
      loaded,
      () => {
        const built = buildRoutes(loaded);
        keep(built.routeKey);
        return built.routes;
      },
      false,
      naming,
    );
  }

  /**
   * A revision's projection under an endpoint's naming: built from the
   * catalog (or the verified store) like the profile's own, cached apart.
   */
  async #endpointProjection(
    rid: string,
    revision: ProfileRevision,
    naming: ToolNaming,
  ): Promise<ToolProjection> {
    const key = `${rid}\0${naming.namespace}\0${naming.style}`;
    const cached = this.#endpointProjections.get(key);
    if (cached !== undefined) return cached;
    const projection = await this.#build(rid, revision, naming, () => {});
    this.#endpointProjections.set(key, projection);
    while (this.#endpointProjections.size > PROJECTION_CACHE)
      this.#endpointProjections.delete(this.#endpointProjections.keys().next().value!);
    return projection;
  }

  /**
   * Builds a candidate revision from `changes` applied in order to the base,
   * validates it completely (trust, every descriptor re-read from the store
   * with digest verification, the CLI route table, the MCP projection) and
   * commits it atomically. A failure leaves `active` untouched.
   *
   * @example
   * await home.apply([{ op: "install", source: "a.tgz" }, { op: "install", source: "b.tgz" }]);
   */
  async apply(
    changes: readonly ProfileChange[],
    options: PublishOptions = {},
  ): Promise<Publication> {
    const base = options.base !== undefined ? options.base : await this.activeRevisionId();
    const baseRevision = base === null ? undefined : await this.readRevision(base);
    let config = baseRevision?.config;
    const extensions = new Map<string, InstalledExtension>(
      (baseRevision?.extensions ?? []).map((e) => [e.id, e]),
    );
    const pending = new Map<string, VerifiedPackage>();
    for (const change of changes) {
      switch (change.op) {
        case "setConfig": {
          const c = change.config;
          const v =
            typeof c === "string" || c instanceof Uint8Array
              ? parseOwnerConfig(c)
              : validateOwnerConfig(c as unknown as JsonValue);
          if (!v.ok)
            throw new ProfileError(
              "invalid_config",
              `owner configuration is invalid: ${v.issues[0]?.path} ${v.issues[0]?.message}`,
              { issues: v.issues },
            );
          config = v.value;
          break;
        }
        case "install": {
          if (config === undefined)
            throw new ProfileError(
              "no_active_revision",
              "publish an owner configuration before installing",
            );
          const files = await readPackageSource(change.source, readLimits(effectiveLimits(config)));
          const pkg = verifyPackage(files, config);
          await checkImports(pkg.descriptor, pkg.files);
          const d = pkg.descriptor;
          const prior = extensions.get(d.id);
          if (prior?.dev !== undefined)
            throw new ProfileError(
              "extension_conflict",
              `extension "${d.id}" is linked for development from ${prior.dev}; unlink it before installing a package of it`,
            );
          checkSource(
            config.trustedPublishers.find((t) => t.id === d.publisher)!,
            d.id,
            await realpath(change.source).catch(() => resolve(change.source)),
          );
          if (prior !== undefined && prior.publisher !== d.publisher)
            throw new ProfileError(
              "extension_conflict",
              `extension id "${d.id}" is already installed from publisher "${prior.publisher}"; "${d.publisher}" cannot replace it`,
            );
          if (prior !== undefined)
            checkVersionChange(
              d.id,
              prior,
              { version: d.version, digest: pkg.digest },
              change.allowDowngrade === true,
            );
          extensions.set(d.id, {
            id: d.id,
            version: d.version,
            publisher: d.publisher,
            digest: pkg.digest,
            enabled: prior?.enabled ?? true,
          });
          pending.set(pkg.digest, pkg);
          if (prior === undefined && change.allowIn !== undefined)
            config = allowExtension(config, change.allowIn, d.id);
          break;
        }
        case "link": {
          if (config === undefined)
            throw new ProfileError(
              "no_active_revision",
              "publish an owner configuration before linking",
            );
          const pkg = await linkedPackage(change.source, config);
          const d = pkg.descriptor;
          if (change.expectId !== undefined && d.id !== change.expectId)
            throw new ProfileError(
              "invalid_link",
              `${pkg.source} now declares "${d.id}", not "${change.expectId}"; unlink ${change.expectId} and link the directory again`,
            );
          const prior = extensions.get(d.id);
          if (prior !== undefined && prior.dev === undefined)
            throw new ProfileError(
              "extension_conflict",
              `extension "${d.id}" is installed from publisher "${prior.publisher}"; remove it before linking a development copy`,
            );
          extensions.set(d.id, {
            id: d.id,
            version: d.version,
            publisher: d.publisher,
            digest: pkg.digest,
            enabled: prior?.enabled ?? true,
            dev: pkg.source,
          });
          pending.set(pkg.digest, pkg);
          if (prior === undefined && change.allowIn !== undefined)
            config = allowExtension(config, change.allowIn, d.id);
          break;
        }
        case "remove":
        case "enable":
        case "disable": {
          const prior = extensions.get(change.id);
          if (prior === undefined)
            throw new ProfileError(
              "unknown_extension",
              `extension "${change.id}" is not installed`,
            );
          if (change.op === "remove") extensions.delete(change.id);
          else extensions.set(change.id, { ...prior, enabled: change.op === "enable" });
          break;
        }
        case "rollback": {
          const target = await this.readRevision(change.to);
          config = target.config;
          extensions.clear();
          for (const e of target.extensions) extensions.set(e.id, e);
          break;
        }
      }
    }
    if (config === undefined)
      throw new ProfileError(
        "no_active_revision",
        "a first publication must set the owner configuration",
      );
    const list = [...extensions.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    const trusted = new Set(config.trustedPublishers.map((p) => p.id));
    // A disabled extension may outlive its publisher's trust; it cannot run or
    // be enabled. A development link is trusted by no one: it is the local
    // user's own, and no endpoint sees it unless the owner names it.
    const enabled = list.filter((e) => e.enabled && e.dev === undefined);
    for (const e of enabled)
      if (!trusted.has(e.publisher))
        throw new ProfileError(
          "untrusted_publisher",
          `installed extension "${e.id}" comes from publisher "${e.publisher}", which the configuration no longer trusts`,
        );
    checkNamespaces(config.trustedPublishers, enabled);

    // A change that changes nothing (reinstalling the same package, re-setting
    // the same configuration) publishes nothing: a new revision would rename
    // every MCP tool for no reason. A rollback always publishes.
    if (
      baseRevision !== undefined &&
      base !== null &&
      !changes.some((c) => c.op === "rollback") &&
      canonicalJson(config as unknown as JsonValue) ===
        canonicalJson(baseRevision.config as unknown as JsonValue) &&
      sameExtensions(list, baseRevision.extensions)
    ) {
      // Installing what is installed publishes nothing, but repairs its stored copy if it was modified.
      for (const pkg of pending.values()) await storePackage(this.root, pkg);
      return {
        revisionId: base,
        revision: baseRevision,
        projection: await this.projection(base),
        published: false,
      };
    }

    // What the base already holds comes from its catalog and route cache: a
    // publication costs what its changes cost, not what is installed.
    const derivation = await this.#derive(base, baseRevision, config, list, pending);
    const baseKey = await this.#routeKey(base, derivation.base);
    const commandGeneration =
      (baseRevision?.commandGeneration ?? 0) + (derivation.routeKey === baseKey ? 0 : 1);
    const routesText = derivation.routesText(commandGeneration);
    const catalogText = derivation.catalogText;
    const revision: ProfileRevision = {
      format: "rukh.profile/1",
      sequence: (baseRevision?.sequence ?? 0) + 1,
      parent: base,
      createdAt: this.#now().toISOString(),
      config,
      extensions: list,
      commandGeneration,
      routesDigest: routesDigestOf(routesText),
      catalogDigest: sha256Hex(catalogText),
    };
    const text = canonicalJson(revision as unknown as JsonValue);
    // fingerprint() of the revision: the SHA-256 of the same canonical text.
    const id = sha256Hex(text);
    // Every new tool's schema and size is checked before anything is committed:
    // a tool the base already published from the same package was checked
    // then (its size does not depend on the revision); without a base
    // catalog, every tool is.
    // A tool whose package the base published was checked then; every other
    // one (new, reinstalled, or a package reached by rollback) is checked now.
    const checked = derivation.base;
    const adding = list.filter(
      (e) =>
        e.enabled && (checked === undefined || !checked.has(e.digest) || pending.has(e.digest)),
    );
    checkToolSizes(
      config,
      id,
      adding.flatMap((e) => derivation.toolsOf(e.digest)),
      derivation.commandOf,
    );
    if (hasCompactNames(config)) checkCompactNames(config, id, derivation.tools());

    // Validation passed: only now does anything enter the state directory.
    for (const pkg of pending.values()) {
      await storePackage(this.root, pkg);
      this.#descriptors.set(pkg.digest, pkg.descriptor);
    }
    await this.#commit(base, id, text, routesText, catalogText, derivation.parts);
    this.#revisions.set(id, revision);
    this.#routeKeys.set(id, derivation.routeKey);
    // The projection is built when it is first read (a CLI install never does).
    let projection: ToolProjection | undefined;
    const remember = (p: ToolProjection) => {
      this.#remember(id, p);
      return p;
    };
    return {
      revisionId: id,
      revision,
      get projection() {
        projection ??= remember(
          projectionFromIndex(
            id,
            revision.commandGeneration,
            config,
            devLinkIds(list),
            derivation.tools(),
            derivation.commandOf,
            derivation.routes,
          ),
        );
        return projection;
      },
      published: true,
    };
  }

  async #writeAtomic(dir: string, name: string, data: string, syncDir = true): Promise<void> {
    const tmp = join(this.root, "tmp", `${temporaryName(name)}${randomBytes(6).toString("hex")}`);
    const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(tmp, join(dir, name));
    } catch (e) {
      await unlink(tmp).catch(() => {});
      throw e;
    }
    if (syncDir) await fsyncDir(dir);
  }

  async #commit(
    base: string | null,
    id: string,
    text: string,
    routesText: string,
    catalogText: string,
    parts: readonly Part[],
  ): Promise<void> {
    const partsDir = join(this.root, "revisions", "parts");
    try {
      await mkdir(join(this.root, "tmp"), { recursive: true });
      await mkdir(partsDir, { recursive: true });
    } catch (e) {
      throw ioError("cannot create the state directory", e);
    }
    const release = await this.#lock();
    try {
      const current = await this.activeRevisionId();
      if (current !== base)
        throw new ProfileError(
          "conflict",
          `the active revision changed from ${base ?? "none"} to ${current ?? "none"} during publication; retry on the new base`,
        );
      // The parts of new packages, the route cache and the catalog land
      // before `active` names the revision, so a reader that sees the new id
      // always finds them; a part already written with the same bytes (by an
      // earlier revision) stays. One sync of each directory after the
      // revision file makes all renames durable.
      let wrote = false;
      for (const part of parts) {
        const have = readBounded(partPath(this.root, part.digest), PART_MAX_BYTES);
        if (have instanceof Buffer && have.equals(Buffer.from(part.text))) continue;
        await this.#writeAtomic(partsDir, `${part.digest}.json`, part.text, false);
        wrote = true;
      }
      if (wrote) await fsyncDir(partsDir);
      await this.#writeAtomic(join(this.root, "revisions"), `${id}.routes.json`, routesText, false);
      await this.#writeAtomic(
        join(this.root, "revisions"),
        `${id}.catalog.json`,
        catalogText,
        false,
      );
      await this.#writeAtomic(join(this.root, "revisions"), `${id}.json`, text);
      await this.#writeAtomic(this.root, "active", `${id}\n`);
    } catch (e) {
      if (e instanceof ProfileError) throw e;
      throw ioError("cannot commit the revision", e);
    } finally {
      await release();
    }
  }

  /**
   * Waits (up to the lock timeout) for the state directory's publication
   * lock: held by the kernel for its holder and freed when it exits however
   * it exits — so a crashed publisher never leaves a stale lock, and a live
   * one is never broken.
   */
  async #lock(): Promise<() => Promise<void>> {
    const real = await realpath(this.root).catch(() => this.root);
    const deadline = Date.now() + this.#lockTimeoutMs;
    for (;;) {
      const lock = await stateLocks(real, this.locks).hold("publication");
      if (lock !== null)
        return async () => {
          lock.release();
        };
      if (Date.now() > deadline)
        throw new ProfileError(
          "lock_timeout",
          `another publisher holds ${this.root}'s publication lock`,
        );
      await new Promise((r) => setTimeout(r, 2 + Math.random() * 8));
    }
  }

  /**
   * Installs (or upgrades, same publisher only) a package from a directory or
   * `.tgz` and publishes the result.
   *
   * @example
   * await home.install("./acme-files.tgz");
   */
  install(source: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "install", source }], options);
  }

  /**
   * Links an unsigned package directory for development and publishes the
   * result: a copy is stored and run like an installed package, marked
   * `dev`, and {@link refreshLinks} links it again after it changes.
   *
   * @example
   * await home.link("./jane-hello");
   */
  link(source: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "link", source }], options);
  }

  /**
   * Links again, in one publication, every development link whose directory
   * changed since it was linked. A link whose directory can no longer be
   * read or checked keeps its last copy and is reported in `problems`.
   *
   * @example
   * const { refreshed, problems } = await home.refreshLinks();
   */
  async refreshLinks(): Promise<LinkRefresh> {
    for (let attempt = 0; ; attempt++) {
      const base = await this.activeRevisionId();
      if (base === null) return { refreshed: [], problems: [], revisionId: null };
      const { stale, problems } = await staleLinks(await this.readRevision(base));
      if (stale.length === 0) return { refreshed: [], problems, revisionId: base };
      const change = (p: (typeof stale)[number]) => ({
        op: "link" as const,
        source: p.source,
        expectId: p.descriptor.id,
      });
      try {
        const published = await this.apply(stale.map(change), { base });
        return {
          refreshed: stale.map((p) => p.descriptor.id),
          problems,
          revisionId: published.revisionId,
        };
      } catch (e) {
        // Another process published first (perhaps the same refresh): look again.
        if (e instanceof ProfileError && e.code === "conflict" && attempt < 3) continue;
        if (stale.length === 1) throw e;
      }
      // One of them cannot be linked: each on its own, so that it alone keeps its last copy.
      const refreshed: string[] = [];
      for (const p of stale)
        try {
          await this.apply([change(p)]);
          refreshed.push(p.descriptor.id);
        } catch (e) {
          problems.push({ id: p.descriptor.id, source: p.source, message: (e as Error).message });
        }
      return { refreshed, problems, revisionId: await this.activeRevisionId() };
    }
  }

  /**
   * Removes an installed extension (its stored package stays for rollback).
   *
   * @example
   * await home.remove("acme.files");
   */
  remove(id: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "remove", id }], options);
  }

  /**
   * Enables an installed extension.
   *
   * @example
   * await home.enable("acme.files");
   */
  enable(id: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "enable", id }], options);
  }

  /**
   * Disables an installed extension: it leaves the CLI routes and MCP tools.
   *
   * @example
   * await home.disable("acme.files");
   */
  disable(id: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "disable", id }], options);
  }

  /**
   * Publishes a new owner configuration (a policy edit).
   *
   * @example
   * await home.setConfig(readFileSync("owner.json"));
   */
  setConfig(
    config: OwnerConfig | Uint8Array | string,
    options?: PublishOptions,
  ): Promise<Publication> {
    return this.apply([{ op: "setConfig", config }], options);
  }

  /**
   * Publishes a new revision with the configuration and extensions of an
   * earlier one (a new id: its sequence and parent differ).
   *
   * @example
   * await home.rollback((await home.history())[1]!.id);
   */
  rollback(to: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "rollback", to }], options);
  }

  /**
   * Whether the active revision's route cache (the CLI's fast index of
   * paths) and catalog (the descriptors listing reads) say exactly what the
   * packages in the store say, each verified against its digest; `"missing"`
   * when either file is absent, `"unbound"` for a revision of an earlier
   * version, which records no digest of them or one of an earlier format
   * (the CLI then reads the descriptors; the next publication writes bound
   * files). With `repair`,
   * a file that is missing or differs is written again from the verified
   * descriptors.
   *
   * @example
   * if ((await home.checkRouteCache()) === "differs") await home.checkRouteCache({ repair: true });
   */
  async checkRouteCache(
    options: { readonly repair?: boolean } = {},
  ): Promise<"matches" | "differs" | "missing" | "rewritten" | "unbound"> {
    const id = await this.activeRevisionId();
    if (id === null) return "matches";
    const revision = await this.readRevision(id);
    // A revision of an earlier version records no digest: no cache of it is trusted.
    if (revision.routesDigest === undefined) return "unbound";
    const loaded = await this.#loaded(revision.extensions);
    const derived = derive(revision.config, revision.extensions, loaded);
    const routesText = derived.routesText(revision.commandGeneration);
    // Bound to a cache of an earlier format: nothing written now could match it.
    if (routesDigestOf(routesText) !== revision.routesDigest) return "unbound";
    const wanted: [string, string][] = [[`${id}.routes.json`, routesText]];
    if (revision.catalogDigest !== undefined)
      wanted.push([`${id}.catalog.json`, derived.catalogText]);
    for (const part of derived.parts) wanted.push([`parts/${part.digest}.json`, part.text]);
    const states: ("matches" | "differs" | "missing")[] = [];
    for (const [name, want] of wanted) {
      let have: string | undefined;
      try {
        have = await readFile(join(this.root, "revisions", name), "utf8");
      } catch (e) {
        if (errno(e) !== "ENOENT") throw ioError(`cannot read ${name}`, e);
      }
      states.push(have === undefined ? "missing" : have === want ? "matches" : "differs");
    }
    const state = states.includes("differs")
      ? "differs"
      : states.includes("missing")
        ? "missing"
        : "matches";
    if (state === "matches" || options.repair !== true) return state;
    const release = await this.#lock();
    try {
      await mkdir(join(this.root, "tmp"), { recursive: true });
      await mkdir(join(this.root, "revisions", "parts"), { recursive: true });
      for (const [i, [name, want]] of wanted.entries())
        if (states[i] !== "matches") {
          const at = join(this.root, "revisions", name);
          await this.#writeAtomic(dirname(at), basename(at), want);
        }
    } finally {
      await release();
    }
    return "rewritten";
  }

  /**
   * Removes revisions past the retention (never the active one, the newest
   * `keep` of its history or any younger than `maxAgeDays`) and stored
   * packages no kept revision uses, under the publication lock; `dryRun`
   * only reports. Rolling back to a removed revision is then impossible.
   *
   * @example
   * const { revisions, packages, bytes } = await home.collectGarbage({ keep: 20, maxAgeDays: 30 });
   */
  async collectGarbage(options: GcOptions = {}): Promise<GcReport> {
    const release = await this.#lock();
    try {
      const report = await collect(this, options, this.#now().getTime());
      if (report.dryRun) return report;
      for (const id of report.revisions) {
        this.#revisions.delete(id);
        this.#routeKeys.delete(id);
        this.#projections.delete(id);
        for (const key of this.#endpointProjections.keys())
          if (key.startsWith(`${id}\0`)) this.#endpointProjections.delete(key);
      }
      for (const digest of report.packages) this.#descriptors.delete(digest);
      return report;
    } finally {
      await release();
    }
  }

  /**
   * The 32-byte HMAC key for tool-list cursors, created (mode 0600) on first use.
   *
   * @example
   * listTools(projection, { preset: "default", cursorKey: await home.cursorKey() });
   */
  async cursorKey(): Promise<Buffer> {
    const dir = join(this.root, "keys");
    const path = join(dir, "cursor.key");
    try {
      const key = await readFile(path);
      if (key.length !== 32)
        throw new ProfileError("invalid_key", `${path} does not hold 32 bytes`);
      return key;
    } catch (e) {
      if (e instanceof ProfileError) throw e;
      if (errno(e) !== "ENOENT") throw ioError("cannot read the cursor key", e);
    }
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await mkdir(join(this.root, "tmp"), { recursive: true });
      const tmp = join(
        this.root,
        "tmp",
        `${temporaryName("cursor.key")}${randomBytes(6).toString("hex")}`,
      );
      const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        await fh.writeFile(randomBytes(32));
        await fh.sync();
      } finally {
        await fh.close();
      }
      // link() fails if another process created the key first; then use theirs.
      await link(tmp, path).catch((e) => {
        if (errno(e) !== "EEXIST") throw e;
      });
      await unlink(tmp);
      await fsyncDir(dir);
      return await readFile(path);
    } catch (e) {
      throw ioError("cannot create the cursor key", e);
    }
  }
}
