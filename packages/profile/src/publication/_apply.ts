// A publication as named steps: read what the changes name, plan them on
// the base (pure, see _plan.ts), derive the revision's routes, catalog and
// tools, check every new tool and that every endpoint can list its tools,
// store the new packages, commit, record what was written as checked.
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { canonicalJson, type JsonValue, sha256Hex } from "@rukh/json";
import { effectiveLimits } from "../config/index.js";
import type {
  OwnerConfig,
  ProfileRevision,
  ToolProjection,
  VerifiedPackage,
} from "../model/index.js";
import {
  checkImports,
  linkedPackage,
  readLimits,
  readNpmArchive,
  readPackageSource,
  storePackage,
  verifyPackage,
} from "../package/index.js";
import {
  checkClientFitNames,
  checkEndpointPages,
  checkToolSizes,
  devLinkIds,
  hasCompactNames,
  hasResponseLimits,
  projectionFromIndex,
  projectionOf,
} from "../projection/index.js";
import { routesDigestOf } from "../routes/index.js";
import { recordCommitted } from "./_checked-files.js";
import { commitRevision, type LockOptions } from "./_commit.js";
import {
  type Candidate,
  candidateOf,
  changesNothing,
  configFor,
  type Draft,
  draftOf,
  type ProfileChange,
  planChange,
  type ReadChange,
} from "./_plan.js";
import type { PublishedRevisions } from "./_published-revisions.js";
import type { BaseDerivation, Pending, RevisionProjections } from "./_revision-projections.js";

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
  /** The revision's MCP projection, built when first read. */
  readonly projection: ToolProjection;
  /** False when the change changed nothing and the active revision stays as it was. */
  readonly published: boolean;
}

/** What a publication reads from and writes to. */
export interface PublicationContext {
  readonly lock: LockOptions;
  readonly revisions: PublishedRevisions;
  readonly projections: RevisionProjections;
  /** Clock for `createdAt`. */
  readonly now: () => Date;
}

/**
 * Builds a candidate revision from `changes` applied in order to the base,
 * validates it completely and commits it atomically (see
 * `StateDirectory.apply`).
 */
export async function publish(
  ctx: PublicationContext,
  changes: readonly ProfileChange[],
  options: PublishOptions,
): Promise<Publication> {
  const base = options.base !== undefined ? options.base : ctx.revisions.active();
  const baseRevision = base === null ? undefined : ctx.revisions.read(base);
  const { candidate, pending } = await planned(ctx.revisions, baseRevision, changes);
  if (
    base !== null &&
    baseRevision !== undefined &&
    changesNothing(candidate, baseRevision, changes)
  ) {
    // Installing what is installed publishes nothing, but repairs its stored copy if it was modified.
    for (const pkg of pending.values()) await storePackage(ctx.lock.root, pkg);
    // Its projection is built when first read: a CLI install never reads it.
    const projection = await ctx.projections.deferredProjection(base);
    return {
      revisionId: base,
      revision: baseRevision,
      get projection() {
        return projection();
      },
      published: false,
    };
  }
  // What the base already holds comes from its catalog and route cache: a
  // publication costs what its changes cost, not what is installed.
  const derivation = await ctx.projections.derive({
    base,
    baseRevision,
    config: candidate.config,
    extensions: candidate.extensions,
    pending,
  });
  const next = await nextRevision(ctx, { base, baseRevision, candidate, derivation });
  checkNewTools(candidate, next, derivation, pending);
  checkListable(candidate, derivation);
  // Validation passed: only now does anything enter the state directory.
  for (const pkg of pending.values()) await storePackage(ctx.lock.root, pkg);
  const stamps = await commitRevision(
    ctx.lock,
    { base, active: () => ctx.revisions.active() },
    {
      id: next.id,
      text: next.text,
      routesText: next.routesText,
      catalogText: derivation.catalogText,
      parts: derivation.parts,
    },
  );
  recordCommitted(ctx.lock.root, {
    id: next.id,
    base,
    stamps,
    parts: candidate.extensions.filter((e) => e.enabled).map((e) => e.digest),
  });
  ctx.revisions.published(next.id, next.revision);
  ctx.projections.published(next.id, derivation.routeKey, pending.values());
  return publicationOf(ctx.projections, next, derivation);
}

/** The changes read and planned on the base: the candidate and the packages they bring. */
async function planned(
  revisions: PublishedRevisions,
  base: ProfileRevision | undefined,
  changes: readonly ProfileChange[],
): Promise<{ candidate: Candidate; pending: Pending }> {
  let draft = draftOf(base);
  const pending = new Map<string, VerifiedPackage>();
  for (const change of changes) {
    const read = await readChange(revisions, draft, change);
    if (read.verified !== undefined) pending.set(read.verified.digest, read.verified);
    draft = planChange(draft, read.change);
  }
  return { candidate: candidateOf(draft), pending };
}

/** A change with the package or revision it names read (and verified). */
async function readChange(
  revisions: PublishedRevisions,
  draft: Draft,
  change: ProfileChange,
): Promise<{ change: ReadChange; verified?: VerifiedPackage }> {
  switch (change.op) {
    case "install": {
      const config: OwnerConfig = configFor(draft, "install");
      const limits = readLimits(effectiveLimits(config));
      const files =
        change.archive === undefined
          ? await readPackageSource(change.source, limits)
          : readNpmArchive(change.archive, limits);
      const pkg = verifyPackage(files, config);
      await checkImports(pkg.descriptor, pkg.files);
      const source =
        change.archive === undefined
          ? await realpath(change.source).catch(() => resolve(change.source))
          : change.source;
      return { change: { ...change, pkg: { ...pkg, source } }, verified: pkg };
    }
    case "link": {
      const pkg = await linkedPackage(change.source, configFor(draft, "link"));
      return { change: { ...change, pkg }, verified: pkg };
    }
    case "rollback":
      return { change: { ...change, target: revisions.read(change.to) } };
    default:
      return { change };
  }
}

interface NextRevision {
  readonly id: string;
  readonly revision: ProfileRevision;
  /** The revision's canonical text; `id` is its SHA-256. */
  readonly text: string;
  readonly routesText: string;
}

/** The revision a candidate publishes on `base`. */
async function nextRevision(
  ctx: PublicationContext,
  step: {
    readonly base: string | null;
    readonly baseRevision: ProfileRevision | undefined;
    readonly candidate: Candidate;
    readonly derivation: BaseDerivation;
  },
): Promise<NextRevision> {
  const { base, baseRevision, candidate, derivation } = step;
  const baseKey = await ctx.projections.routeKey(base, derivation.base);
  const commandGeneration =
    (baseRevision?.commandGeneration ?? 0) + (derivation.routeKey === baseKey ? 0 : 1);
  const routesText = derivation.routesText(commandGeneration);
  const revision: ProfileRevision = {
    format: "rukh.profile/1",
    sequence: (baseRevision?.sequence ?? 0) + 1,
    parent: base,
    createdAt: ctx.now().toISOString(),
    config: candidate.config,
    extensions: candidate.extensions,
    commandGeneration,
    routesDigest: routesDigestOf(routesText),
    catalogDigest: sha256Hex(derivation.catalogText),
  };
  const text = canonicalJson(revision as unknown as JsonValue);
  // fingerprint() of the revision: the SHA-256 of the same canonical text.
  return { id: sha256Hex(text), revision, text, routesText };
}

/**
 * Checks every tool the base did not already publish from the same package
 * (new, reinstalled, or reached by rollback; without a base catalog, every
 * tool) before anything is committed: a tool's size does not depend on the
 * revision, so one checked then stays checked.
 */
function checkNewTools(
  candidate: Candidate,
  next: NextRevision,
  derivation: BaseDerivation,
  pending: Pending,
): void {
  const id = next.id;
  const checked = derivation.base;
  const adding = candidate.extensions.filter(
    (e) => e.enabled && (checked === undefined || !checked.has(e.digest) || pending.has(e.digest)),
  );
  checkToolSizes(
    candidate.config,
    adding.flatMap((e) => derivation.toolsOf(e.digest)),
    derivation.commandOf,
  );
  if (hasCompactNames(candidate.config))
    checkClientFitNames(
      candidate.config,
      { revisionId: id, sequence: next.revision.sequence },
      derivation.slugs,
      derivation.tools,
    );
}

/**
 * Checks that every endpoint can list what it would list: its response
 * limit carries its largest tool (read only when some endpoint sets one).
 */
function checkListable(candidate: Candidate, derivation: BaseDerivation): void {
  if (!hasResponseLimits(candidate.config)) return;
  checkEndpointPages({
    config: candidate.config,
    tools: derivation.tools,
    devExtensions: devLinkIds(candidate.extensions),
  });
}

/** The publication of a committed revision; its projection is built when first read (a CLI install never does). */
function publicationOf(
  projections: RevisionProjections,
  next: NextRevision,
  derivation: BaseDerivation,
): Publication {
  const { id, revision } = next;
  let projection: ToolProjection | undefined;
  return {
    revisionId: id,
    revision,
    get projection() {
      projection ??= projections.remember(
        id,
        projectionFromIndex(
          projectionOf(id, revision),
          { tools: derivation.tools(), commandOf: derivation.commandOf },
          derivation.routes,
        ),
      );
      return projection;
    },
    published: true,
  };
}
