import {
  type CliRouteTable,
  type OwnerConfig,
  ProfileError,
  type ProfileRevision,
  type ToolNaming,
  type ToolProjection,
} from "./model/index.js";
import { type LinkRefresh, staleLinks } from "./package/index.js";
import {
  checkRouteCache,
  type LockOptions,
  type ProfileChange,
  type Publication,
  type PublicationContext,
  PublishedRevisions,
  type PublishOptions,
  publicationLock,
  publish,
  RevisionProjections,
  type RouteCacheState,
} from "./publication/index.js";
import {
  assertWritable,
  collect,
  cursorKey,
  type GcOptions,
  type GcReport,
  type LockMechanism,
  type StatePlaces,
  SYSTEM_LOCKS,
  statePlaces,
} from "./state-dir/index.js";

/** Options of a {@link StateDirectory}. */
export interface StateDirectoryOptions {
  /** How long to wait for the publication lock; default 10,000 ms. */
  readonly lockTimeoutMs?: number;
  /** Clock for `createdAt`; default `() => new Date()`. */
  readonly now?: () => Date;
  /** How this directory's locks are held; default {@link SYSTEM_LOCKS} (tests run both). */
  readonly locks?: LockMechanism;
  /** The brand whose state this is: a refusal to start names its `<BRAND>_JOURNAL_DIR`. */
  readonly brand?: string;
  /**
   * This process's journal directory (absolute), overriding the owner
   * configuration's `journal.dir`: what the brand's `<BRAND>_JOURNAL_DIR`
   * says (see `brandStateOptions`).
   */
  readonly journalDir?: string;
  /**
   * Called with the id of each revision this instance publishes (a change
   * that changed nothing publishes none): how a built-in command's journal
   * record names what it changed.
   */
  readonly onPublished?: (revisionId: string) => void;
}

/**
 * A Rukh state directory: owner configuration and installed releases inside
 * immutable profile revisions, a content-addressed store and the `active`
 * pointer. Every change publishes a new revision atomically, guarded by a
 * compare-and-swap on the revision it started from. Descriptors are verified
 * against their digest once per instance and cached.
 *
 * @example
 * const state = new StateDirectory(resolveStateDir());
 * await state.setConfig(readFileSync("owner.json"));
 * await state.install("./acme-files.tgz");
 * const projection = await state.projection();
 */
export class StateDirectory {
  readonly root: string;
  /** How this directory's locks are held, by this instance and every core opened on it. */
  readonly locks: LockMechanism;
  readonly #now: () => Date;
  readonly #lock: LockOptions;
  readonly #revisions: PublishedRevisions;
  readonly #projections: RevisionProjections;
  readonly #brand: string | undefined;
  readonly #journalDir: string | undefined;
  readonly #onPublished: ((revisionId: string) => void) | undefined;

  constructor(root: string, options: StateDirectoryOptions = {}) {
    this.root = root;
    this.#brand = options.brand;
    this.#journalDir = options.journalDir;
    this.#onPublished = options.onPublished;
    this.#now = options.now ?? (() => new Date());
    this.locks = options.locks ?? SYSTEM_LOCKS;
    this.#lock = { root, locks: this.locks, timeoutMs: options.lockTimeoutMs ?? 10_000 };
    this.#revisions = new PublishedRevisions(root);
    this.#projections = new RevisionProjections(root, this.#revisions);
  }

  /**
   * The id named by `active`, or `null` before the first publication.
   *
   * @example
   * const id = await state.activeRevisionId();
   */
  async activeRevisionId(): Promise<string | null> {
    return this.#revisions.active();
  }

  /**
   * Reads and verifies a revision file (its content must hash to its id).
   *
   * @example
   * const rev = await state.readRevision(id);
   */
  async readRevision(id: string): Promise<ProfileRevision> {
    return this.#revisions.read(id);
  }

  /**
   * Revisions from the active one back through its parents, newest first.
   *
   * @example
   * for (const { id, revision } of await state.history()) console.log(revision.sequence, id);
   */
  async history(limit = 100): Promise<{ id: string; revision: ProfileRevision }[]> {
    return this.#revisions.history(limit);
  }

  /**
   * The CLI route table of a revision (default: the active one) built from
   * its enabled packages, each read from the store and verified against its
   * digest — never from the route cache, the catalog or the parts. What the
   * CLI falls back to when those are damaged; a modified package fails with
   * `store_corrupt`.
   *
   * @example
   * const { commands } = await state.verifiedRoutes();
   */
  async verifiedRoutes(id?: string): Promise<CliRouteTable> {
    const rid = id ?? this.#revisions.active();
    if (rid === null) return { commands: [], groups: [] };
    return this.#projections.verifiedRoutes(rid);
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
   * const tool = resolveTool(await state.projection(), name);
   */
  async projection(id?: string, naming?: ToolNaming): Promise<ToolProjection> {
    const rid = id ?? this.#revisions.active();
    if (rid === null)
      throw new ProfileError(
        "no_active_revision",
        "nothing has been published in this state directory yet",
      );
    return this.#projections.projection(rid, naming);
  }

  /**
   * Builds a candidate revision from `changes` applied in order to the base,
   * validates it completely (trust, every descriptor re-read from the store
   * with digest verification, the CLI route table, the MCP projection) and
   * commits it atomically. A failure leaves `active` untouched.
   *
   * @example
   * await state.apply([{ op: "install", source: "a.tgz" }, { op: "install", source: "b.tgz" }]);
   */
  async apply(
    changes: readonly ProfileChange[],
    options: PublishOptions = {},
  ): Promise<Publication> {
    // Before any package is read: a read-only directory takes no change, whatever it is.
    await assertWritable(this.root);
    const publication = await publish(this.#publication(), changes, options);
    if (publication.published)
      try {
        this.#onPublished?.(publication.revisionId);
      } catch {
        // The revision is committed: what a listener does with the news cannot undo it.
      }
    return publication;
  }

  #publication(): PublicationContext {
    return {
      lock: this.#lock,
      revisions: this.#revisions,
      projections: this.#projections,
      now: this.#now,
    };
  }

  /**
   * Installs (or upgrades, same publisher only) a package from a directory or
   * `.tgz` and publishes the result.
   *
   * @example
   * await state.install("./acme-files.tgz");
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
   * await state.link("./jane-hello");
   */
  link(source: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "link", source }], options);
  }

  /**
   * Links again, in one publication, every development link whose directory
   * changed since it was linked. A link whose directory can no longer be
   * read or checked keeps its last copy and is reported in `problems`.
   *
   * With `publish: false` (what read-only commands such as help and
   * listings ask) it only looks: the changed links are in `changed`, and
   * nothing is published.
   *
   * @example
   * const { refreshed, problems } = await state.refreshLinks();
   */
  async refreshLinks(options: { publish?: boolean } = {}): Promise<LinkRefresh> {
    for (let attempt = 0; ; attempt++) {
      const base = await this.activeRevisionId();
      if (base === null) return { refreshed: [], changed: [], problems: [], revisionId: null };
      const { stale, problems } = await staleLinks(await this.readRevision(base));
      if (stale.length === 0 || options.publish === false)
        return {
          refreshed: [],
          changed: stale.map((p) => p.descriptor.id),
          problems,
          revisionId: base,
        };
      const change = (p: (typeof stale)[number]) => ({
        op: "link" as const,
        source: p.source,
        expectId: p.descriptor.id,
      });
      try {
        const published = await this.apply(stale.map(change), { base });
        return {
          refreshed: stale.map((p) => p.descriptor.id),
          changed: [],
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
      return { refreshed, changed: [], problems, revisionId: await this.activeRevisionId() };
    }
  }

  /**
   * Removes an installed extension (its stored package stays for rollback).
   *
   * @example
   * await state.remove("acme.files");
   */
  remove(id: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "remove", id }], options);
  }

  /**
   * Enables an installed extension.
   *
   * @example
   * await state.enable("acme.files");
   */
  enable(id: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "enable", id }], options);
  }

  /**
   * Disables an installed extension: it leaves the CLI routes and MCP tools.
   *
   * @example
   * await state.disable("acme.files");
   */
  disable(id: string, options?: PublishOptions): Promise<Publication> {
    return this.apply([{ op: "disable", id }], options);
  }

  /**
   * Publishes a new owner configuration (a policy edit).
   *
   * @example
   * await state.setConfig(readFileSync("owner.json"));
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
   * await state.rollback((await state.history())[1]!.id);
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
   * if ((await state.checkRouteCache()) === "differs") await state.checkRouteCache({ repair: true });
   */
  async checkRouteCache(options: { readonly repair?: boolean } = {}): Promise<RouteCacheState> {
    return checkRouteCache({
      lock: this.#lock,
      revisions: this.#revisions,
      projections: this.#projections,
      repair: options.repair === true,
    });
  }

  /**
   * Removes revisions past the retention (never the active one, the newest
   * `keep` of its history or any younger than `maxAgeDays`) and stored
   * packages no kept revision uses, under the publication lock; `dryRun`
   * only reports. Rolling back to a removed revision is then impossible.
   *
   * @example
   * const { revisions, packages, bytes } = await state.collectGarbage({ keep: 20, maxAgeDays: 30 });
   */
  async collectGarbage(options: GcOptions = {}): Promise<GcReport> {
    if (options.dryRun !== true) await assertWritable(this.root);
    const release = await publicationLock(this.#lock);
    try {
      const report = await collect(this, options, this.#now().getTime());
      if (report.dryRun) return report;
      for (const id of report.revisions) this.#revisions.forget(id);
      this.#projections.forget(report.revisions, report.packages);
      return report;
    } finally {
      await release();
    }
  }

  /**
   * The 32-byte HMAC key for tool-list cursors, created (mode 0600) on first
   * use: the state directory's own when it holds one or can take one, else
   * the journal directory's (see {@link places}); `read_only` when neither.
   *
   * @example
   * listTools(projection, { preset: "default", cursorKey: await state.cursorKey() });
   */
  async cursorKey(): Promise<Buffer> {
    const places = await this.places();
    if (places.keyRoot === undefined) throw new ProfileError("read_only", places.refusal!);
    return cursorKey(places.keyRoot);
  }

  /**
   * Where this process's hosts write: whether the state directory is
   * read-only, the journal directory (this process's `journalDir`, else the
   * active revision's `journal.dir`) and what set it, the directory holding
   * `journal/`, `logs/` and the movable caches, the cursor key's, and why a
   * host cannot start (a read-only state directory without a journal
   * directory).
   *
   * @example
   * const places = await state.places();
   * if (places.refusal !== undefined) throw new Error(places.refusal);
   */
  async places(): Promise<StatePlaces> {
    // A revision that cannot be read names no journal directory; what needs it fails on its own.
    const configured = await this.activeRevisionId()
      .then((id) => (id === null ? undefined : this.readRevision(id)))
      .then((r) => r?.config.journal?.dir)
      .catch(() => undefined);
    return statePlaces({
      root: this.root,
      configured,
      brand: this.#brand,
      override: this.#journalDir,
    });
  }
}
