// What an administrative edit starts from: the active revision (or a new
// owner's first configuration), so that its publication is compare-and-set
// on exactly that revision.

import type { BuiltinContext } from "@rukh/cli";
import type {
  OwnerConfig,
  ProfileRevision,
  Publication,
  StateDirectory,
  TaskPreset,
} from "@rukh/profile";
import { loadProfile, print } from "./_command.js";
import { OK } from "./_failure.js";

/** A configuration a new owner starts from: nothing trusted, nothing exposed. */
export function initialConfig(brand: string): OwnerConfig {
  const preset = (
    enforcement: TaskPreset["enforcement"],
    deadlineMs: number,
    maxConcurrency: number,
  ): TaskPreset => ({
    commands: [],
    actions: [],
    resources: [],
    deadlineMs,
    maxConcurrency,
    enforcement,
  });
  return {
    brand,
    endpointNamespace: `${brand}-local`,
    trustedPublishers: [],
    exposure: { commands: [], extensions: [] },
    // The person at the terminal runs as the owner; agents get the confined preset.
    presets: { default: preset("host-trusted", 60_000, 4), agent: preset("strict", 30_000, 2) },
    defaultPreset: "default",
  };
}

/** The revision an edit reads, and the configuration it edits. */
export interface Current {
  /** The active revision id, or `null` before the first publication. */
  readonly base: string | null;
  readonly revision: ProfileRevision | undefined;
  readonly config: OwnerConfig;
}

export async function current(state: StateDirectory, brand: string): Promise<Current> {
  const base = await state.activeRevisionId();
  const revision = base === null ? undefined : await state.readRevision(base);
  return { base, revision, config: revision?.config ?? initialConfig(brand) };
}

/** An edit of the configuration: what it was read from, what it becomes, and how the change is reported. */
export interface ConfigEdit {
  readonly from: Current;
  readonly config: OwnerConfig;
  /** The change, as printed ("exposed acme.notes"). */
  readonly what: string;
}

/**
 * Publishes `config` on the revision it was read from — a concurrent edit
 * makes it fail with `conflict` (safe to retry) instead of being lost — and
 * says whether anything was published.
 */
export async function publishConfig(
  ctx: BuiltinContext,
  state: StateDirectory,
  { from, config, what }: ConfigEdit,
): Promise<number> {
  const p = await state.setConfig(config, { base: from.base });
  return reported(ctx, p, what);
}

/** Prints what a publication did: `what` and the new revision, or that nothing changed. */
export function reported(ctx: BuiltinContext, p: Publication, what: string): number {
  const text = p.published
    ? `${what}; published profile revision ${p.revisionId.slice(0, 12)}`
    : `nothing changed; profile revision ${p.revisionId.slice(0, 12)} stays active`;
  print(ctx, text, {
    revisionId: p.revisionId,
    published: p.published,
    ...(p.published && { change: what }),
  });
  return OK;
}

/** Completion candidates from the active revision: extension ids, commands, publishers or presets. */
export async function candidates(
  stateDir: string,
  kind: "extensions" | "commands" | "publishers" | "presets" | "endpoints",
): Promise<string[]> {
  const state = new (await loadProfile()).StateDirectory(stateDir);
  const id = await state.activeRevisionId();
  if (id === null) return [];
  const rev = await state.readRevision(id);
  switch (kind) {
    case "extensions":
      return rev.extensions.map((e) => e.id);
    case "publishers":
      return rev.config.trustedPublishers.map((p) => p.id);
    case "presets":
      return Object.keys(rev.config.presets);
    case "endpoints":
      return Object.keys(rev.config.mcp?.endpoints ?? {});
    case "commands":
      return [
        ...rev.extensions.map((e) => e.id),
        ...(await state.projection(id)).routes.commands.map((c) => c.identity),
      ];
  }
}
