// Planning a publication: what a list of changes makes of a base revision.
// Every function here is pure — the packages, sources and rollback targets a
// change names are read before (see _apply.ts) — so each kind of change can
// be tried alone: base + request → candidate, or the refusal.
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { canonicalJson, type JsonValue } from "@rukh/json";
import {
  checkNamespaces,
  checkSource,
  checkVersionChange,
  parseOwnerConfig,
  presetNamed,
  validateOwnerConfig,
} from "../config/index.js";
import {
  type ExtensionOrigin,
  type InstalledExtension,
  type OwnerConfig,
  ProfileError,
  type ProfileRevision,
} from "../model/index.js";
import { registryWithoutUserInfo } from "./_revision-check.js";

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
      /**
       * The package's bytes (an npm tarball: its files under `package/`),
       * fetched from where `origin` says; `source` then only names it in
       * messages. Read and checked exactly as a `.tgz` file is.
       */
      readonly archive?: Uint8Array;
      /** Where `archive` was fetched from, recorded on the installed entry. */
      readonly origin?: ExtensionOrigin;
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

/** A package a change brings, as read and verified from its source. */
export interface ArrivingPackage {
  readonly descriptor: Pick<ExtensionDescriptor, "id" | "version" | "publisher">;
  readonly digest: string;
  /** Where it was read from: the resolved path of an install, a link's directory. */
  readonly source: string;
}

/**
 * A change with what it names already read: the package an install or link
 * brings, the revision a rollback returns to.
 */
export type ReadChange =
  | Exclude<ProfileChange, { op: "install" | "link" | "rollback" }>
  | (Extract<ProfileChange, { op: "install" }> & { readonly pkg: ArrivingPackage })
  | (Extract<ProfileChange, { op: "link" }> & { readonly pkg: ArrivingPackage })
  | (Extract<ProfileChange, { op: "rollback" }> & { readonly target: ProfileRevision });

/** A publication being planned: the configuration and extensions so far. */
export interface Draft {
  readonly config: OwnerConfig | undefined;
  /** Installed extensions by id. */
  readonly extensions: ReadonlyMap<string, InstalledExtension>;
}

/** What a planned publication would publish, checked as a whole. */
export interface Candidate {
  readonly config: OwnerConfig;
  /** Sorted by id. */
  readonly extensions: readonly InstalledExtension[];
}

/** The draft a publication on `base` starts from (`undefined`: the empty state). */
export function draftOf(base: ProfileRevision | undefined): Draft {
  return {
    config: base?.config,
    extensions: new Map((base?.extensions ?? []).map((e) => [e.id, e])),
  };
}

/** The configuration an install or link needs, or the refusal naming what to do first. */
export function configFor(draft: Draft, op: "install" | "link"): OwnerConfig {
  if (draft.config === undefined)
    throw new ProfileError(
      "no_active_revision",
      op === "install"
        ? "publish an owner configuration before installing"
        : "publish an owner configuration before linking",
    );
  return draft.config;
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

/**
 * The draft with the package a change brings installed (or linked from
 * `dev`), keeping the prior entry's enabled state; a new extension's id is
 * allowed in the preset the change names.
 */
function arrived(
  draft: Draft,
  config: OwnerConfig,
  change: {
    readonly pkg: ArrivingPackage;
    readonly allowIn?: string;
    readonly origin?: ExtensionOrigin;
  },
  dev?: string,
): Draft {
  const d = change.pkg.descriptor;
  const prior = draft.extensions.get(d.id);
  const extensions = new Map(draft.extensions).set(d.id, {
    id: d.id,
    version: d.version,
    publisher: d.publisher,
    digest: change.pkg.digest,
    enabled: prior?.enabled ?? true,
    ...(dev !== undefined && { dev }),
    // A registry install records where it came from (never a credential); a file install, nothing.
    ...(change.origin !== undefined && {
      origin: { ...change.origin, registry: registryWithoutUserInfo(change.origin.registry) },
    }),
  });
  const allowed =
    prior === undefined && change.allowIn !== undefined
      ? allowExtension(config, change.allowIn, d.id)
      : config;
  return { config: allowed, extensions };
}

function planSetConfig(draft: Draft, given: OwnerConfig | Uint8Array | string): Draft {
  const v =
    typeof given === "string" || given instanceof Uint8Array
      ? parseOwnerConfig(given)
      : validateOwnerConfig(given as unknown as JsonValue);
  if (!v.ok)
    throw new ProfileError(
      "invalid_config",
      `owner configuration is invalid: ${v.issues[0]?.path} ${v.issues[0]?.message}`,
      { issues: v.issues },
    );
  return { ...draft, config: v.value };
}

function planInstall(draft: Draft, change: Extract<ReadChange, { op: "install" }>): Draft {
  const config = configFor(draft, "install");
  const { pkg } = change;
  const d = pkg.descriptor;
  const prior = draft.extensions.get(d.id);
  if (prior?.dev !== undefined)
    throw new ProfileError(
      "extension_conflict",
      `extension "${d.id}" is linked for development from ${prior.dev}; unlink it before installing a package of it`,
    );
  const publisher = config.trustedPublishers.find((t) => t.id === d.publisher);
  if (publisher === undefined)
    throw new ProfileError(
      "untrusted_publisher",
      `publisher "${d.publisher}" is not in /trustedPublishers`,
    );
  checkSource(publisher, d.id, pkg.source);
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
  return arrived(draft, config, change);
}

function planLink(draft: Draft, change: Extract<ReadChange, { op: "link" }>): Draft {
  const config = configFor(draft, "link");
  const { pkg } = change;
  const d = pkg.descriptor;
  if (change.expectId !== undefined && d.id !== change.expectId)
    throw new ProfileError(
      "invalid_link",
      `${pkg.source} now declares "${d.id}", not "${change.expectId}"; unlink ${change.expectId} and link the directory again`,
    );
  const prior = draft.extensions.get(d.id);
  if (prior !== undefined && prior.dev === undefined)
    throw new ProfileError(
      "extension_conflict",
      `extension "${d.id}" is installed from publisher "${prior.publisher}"; remove it before linking a development copy`,
    );
  return arrived(draft, config, change, pkg.source);
}

function planToggle(
  draft: Draft,
  change: Extract<ReadChange, { op: "remove" | "enable" | "disable" }>,
): Draft {
  const prior = draft.extensions.get(change.id);
  if (prior === undefined)
    throw new ProfileError("unknown_extension", `extension "${change.id}" is not installed`);
  const extensions = new Map(draft.extensions);
  if (change.op === "remove") extensions.delete(change.id);
  else extensions.set(change.id, { ...prior, enabled: change.op === "enable" });
  return { ...draft, extensions };
}

/**
 * What one change makes of a draft, or the refusal (a `ProfileError`).
 *
 * @example
 * const next = planChange(draftOf(base), { op: "disable", id: "acme.files" });
 */
export function planChange(draft: Draft, change: ReadChange): Draft {
  switch (change.op) {
    case "setConfig":
      return planSetConfig(draft, change.config);
    case "install":
      return planInstall(draft, change);
    case "link":
      return planLink(draft, change);
    case "remove":
    case "enable":
    case "disable":
      return planToggle(draft, change);
    case "rollback":
      return draftOf(change.target);
  }
}

/**
 * The candidate a finished draft publishes, checked as a whole: it has a
 * configuration, every enabled extension's publisher is trusted, and no two
 * publishers' namespaces meet.
 */
export function candidateOf(draft: Draft): Candidate {
  const config = draft.config;
  if (config === undefined)
    throw new ProfileError(
      "no_active_revision",
      "a first publication must set the owner configuration",
    );
  const extensions = [...draft.extensions.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const trusted = new Set(config.trustedPublishers.map((p) => p.id));
  // A disabled extension may outlive its publisher's trust; it cannot run or
  // be enabled. A development link is trusted by no one: it is the local
  // user's own, and no endpoint sees it unless the owner names it.
  const enabled = extensions.filter((e) => e.enabled && e.dev === undefined);
  for (const e of enabled)
    if (!trusted.has(e.publisher))
      throw new ProfileError(
        "untrusted_publisher",
        `installed extension "${e.id}" comes from publisher "${e.publisher}", which the configuration no longer trusts`,
      );
  checkNamespaces(config.trustedPublishers, enabled);
  return { config, extensions };
}

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
        e.dev === o.dev &&
        canonicalJson((e.origin ?? null) as unknown as JsonValue) ===
          canonicalJson((o.origin ?? null) as unknown as JsonValue)
      );
    })
  );
}

/**
 * Whether publishing `candidate` on `base` would change nothing (reinstalling
 * the same package, re-setting the same configuration): then nothing is
 * published, since a new revision would rename every MCP tool for no reason.
 * A rollback always publishes.
 */
export function changesNothing(
  candidate: Candidate,
  base: ProfileRevision | undefined,
  changes: readonly ProfileChange[],
): boolean {
  return (
    base !== undefined &&
    !changes.some((c) => c.op === "rollback") &&
    canonicalJson(candidate.config as unknown as JsonValue) ===
      canonicalJson(base.config as unknown as JsonValue) &&
    sameExtensions(candidate.extensions, base.extensions)
  );
}
