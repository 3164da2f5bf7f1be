// What an install or upgrade did to each extension, in words and as data.

import type { InstalledExtension, Publication } from "@rukh/profile";
import type { Profile } from "../kit/index.js";

/** One extension an install changed: its line and its `--json` entry. */
export interface ExtChange {
  readonly text: string;
  readonly change: Record<string, string>;
}

/** What a publication did to each extension installed before it. */
export function installChanges(
  before: readonly InstalledExtension[],
  p: Publication,
  { compareVersions }: Profile,
): ExtChange[] {
  const changes: ExtChange[] = [];
  // By id: a profile of 1,000 extensions would otherwise be searched 1,000 times.
  const priorOf = new Map(before.map((b) => [b.id, b]));
  for (const e of p.revision.extensions) {
    const prior = priorOf.get(e.id);
    if (prior?.digest === e.digest) continue;
    if (prior === undefined) {
      changes.push({
        text: `installed ${e.id} ${e.version}`,
        change: { id: e.id, change: "installed", to: e.version },
      });
      continue;
    }
    // Build metadata orders nothing: other content at the same precedence replaced the installed one.
    const order = compareVersions(e.version, prior.version);
    const verb = order < 0 ? "downgraded" : order > 0 ? "upgraded" : "replaced";
    changes.push({
      text: `${verb} ${e.id} ${prior.version} → ${e.version}${order === 0 ? " (the same precedence)" : ""}`,
      change: { id: e.id, change: verb, from: prior.version, to: e.version },
    });
  }
  return changes;
}

/** Where an installed extension came from, for `ext list`: nothing for a file. */
export function originText(e: InstalledExtension): string {
  const o = e.origin;
  return o === undefined ? "" : `  from ${o.name}@${o.version} (${o.spec}) at ${o.registry}`;
}
