// The trust rules every publication checks, whoever makes it: versions only
// go up, each publisher installs only inside its namespaces, a CLI group
// belongs to one publisher, and the brand's administration paths belong to
// no extension. Pure functions over a candidate revision.

import {
  type InstalledExtension,
  ProfileError,
  type Routing,
  type TrustedPublisher,
} from "../model/index.js";

/**
 * The first words of the brand's own commands (administration, help and
 * completion). No extension may declare a command, alias or group at or
 * under them: the brand's commands would shadow it, and its docs would lie.
 */
export const RESERVED_CLI_WORDS: readonly string[] = Object.freeze([
  "completion",
  "docs",
  "doctor",
  "expose",
  "ext",
  "help",
  "keygen",
  "mcp",
  "preset",
  "profile",
  "runs",
  "tools",
  "trust",
]);

const NUMERIC = /^(0|[1-9]\d*)$/;

/**
 * Semantic-version precedence of two valid versions: negative when `a` is
 * lower, 0 when equal (build metadata is ignored), positive when higher.
 *
 * @example
 * compareVersions("1.0.0-rc.1", "1.0.0"); // < 0
 */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const core = v.split("+")[0]!;
    const dash = core.indexOf("-");
    const main = (dash < 0 ? core : core.slice(0, dash)).split(".").map(BigInt);
    return { main, pre: dash < 0 ? [] : core.slice(dash + 1).split(".") };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) if (x.main[i] !== y.main[i]) return x.main[i]! < y.main[i]! ? -1 : 1;
  // A version without a pre-release is higher than one with.
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i]!;
    const q = y.pre[i]!;
    if (p === q) continue;
    const pn = NUMERIC.test(p);
    const qn = NUMERIC.test(q);
    if (pn && qn) return BigInt(p) < BigInt(q) ? -1 : 1;
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}

/** The namespaces a publisher owns: what it was granted, by default `<publisher id>.*`. */
export function namespacesOf(p: TrustedPublisher): readonly string[] {
  return p.namespaces ?? [`${p.id}.*`];
}

/** Whether extension id `id` is inside namespace `ns` (`acme.*`: any id under `acme.`; otherwise exactly `ns`). */
export function inNamespace(id: string, ns: string): boolean {
  return ns.endsWith(".*") ? id.startsWith(ns.slice(0, -1)) : id === ns;
}

/** Whether some extension id is inside both namespaces. */
export function namespacesOverlap(a: string, b: string): boolean {
  const aw = a.endsWith(".*");
  const bw = b.endsWith(".*");
  if (!aw && !bw) return a === b;
  if (aw && !bw) return inNamespace(b, a);
  if (!aw && bw) return inNamespace(a, b);
  return a.startsWith(b.slice(0, -1)) || b.startsWith(a.slice(0, -1));
}

/**
 * How an install changes an installed extension: refuses a lower version
 * (`downgrade`, unless allowed), the same version with other content
 * (`version_reused`, always) and other content at the same precedence under
 * other build metadata, which orders nothing (`version_reused`: a rebuild,
 * unless a downgrade is allowed, the one leave an owner gives to go anywhere
 * but up).
 */
export function checkVersionChange(
  id: string,
  prior: { readonly version: string; readonly digest: string },
  next: { readonly version: string; readonly digest: string },
  allowDowngrade: boolean,
): void {
  const order = compareVersions(next.version, prior.version);
  if (order < 0 && !allowDowngrade)
    throw new ProfileError(
      "downgrade",
      `${id} ${next.version} is lower than the installed ${prior.version}; pass --allow-downgrade to install it anyway`,
    );
  if (order !== 0 || prior.digest === next.digest) return;
  const contents = `${prior.digest.slice(0, 12)}, now ${next.digest.slice(0, 12)}`;
  if (prior.version === next.version)
    throw new ProfileError(
      "version_reused",
      `${id} ${next.version} is installed with other content (${contents}); a publisher must release changed content under a new version`,
    );
  if (!allowDowngrade)
    throw new ProfileError(
      "version_reused",
      `${id} ${next.version} has the same precedence as the installed ${prior.version} (build metadata does not order versions) but other content (${contents}): it is a same-precedence rebuild, not an upgrade; pass --allow-downgrade to replace the installed ${prior.version} with it`,
    );
}

/**
 * Every enabled extension must be inside a namespace of the publisher that
 * signed it (`namespace_denied`).
 */
export function checkNamespaces(
  publishers: readonly TrustedPublisher[],
  extensions: readonly { readonly id: string; readonly publisher: string }[],
): void {
  const byId = new Map(publishers.map((p) => [p.id, p]));
  for (const e of extensions) {
    const p = byId.get(e.publisher);
    if (p === undefined) continue;
    const owned = namespacesOf(p);
    if (!owned.some((ns) => inNamespace(e.id, ns)))
      throw new ProfileError(
        "namespace_denied",
        `publisher "${p.id}" may install extension ids in ${owned.join(", ")}; "${e.id}" is outside them`,
      );
  }
}

/**
 * Who owns what `routing` claims in the CLI: its publisher, except for a
 * development link, which owns only what it brings itself. Its descriptor
 * may name any publisher, and no key stands behind that.
 */
export function routingOwner(routing: Routing, installed: InstalledExtension): Routing {
  return installed.dev === undefined
    ? routing
    : {
        ...routing,
        publisher: `${routing.publisher}, unsigned (development link ${installed.id})`,
      };
}

/**
 * The CLI paths of the extensions: no command, alias or group at or under a
 * reserved word (`reserved_path`), and every group — declared, or the prefix
 * of a command's path — belongs to one publisher (`group_conflict`): another
 * publisher's extension cannot add commands under it. The extensions named
 * in `incumbents` (those the base revision already had) claim first, so an
 * error blames the one that came later.
 */
export function checkCliOwnership(
  descriptors: readonly Routing[],
  incumbents: ReadonlySet<string> = new Set(),
): void {
  const owners = new Map<string, { publisher: string; by: string }>();
  // `what` names the claim in an error only: no message is built otherwise.
  const own = (prefix: string, d: Routing, what: () => string) => {
    const prior = owners.get(prefix);
    if (prior === undefined) owners.set(prefix, { publisher: d.publisher, by: d.id });
    else if (prior.publisher !== d.publisher)
      throw new ProfileError(
        "group_conflict",
        `CLI group "${prefix}" belongs to publisher "${prior.publisher}" (${prior.by}); ${d.id} by "${d.publisher}" cannot add ${what()} under it`,
      );
  };
  const reserved = (d: Routing, path: readonly string[], what: () => string) => {
    if (RESERVED_CLI_WORDS.includes(path[0]!))
      throw new ProfileError(
        "reserved_path",
        `${d.id} declares ${what()}, but "${path[0]}" is one of the brand's own commands (${RESERVED_CLI_WORDS.join(", ")})`,
      );
  };
  const rank = (d: Routing) => (incumbents.has(d.id) ? 0 : 1);
  const sorted = [...descriptors].sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : 1));
  for (const d of sorted) {
    for (const g of d.groups) reserved(d, g.path, () => `group "${g.path.join(" ")}"`);
    for (const c of d.commands)
      for (const p of [c.path, ...c.aliases])
        reserved(d, p, () => `"${p.join(" ")}" (${c.identity})`);
  }
  // Declared groups first, so that a declaration, not a command's path, decides the owner.
  for (const d of sorted)
    for (const g of d.groups) own(g.path.join(" "), d, () => `group "${g.path.join(" ")}"`);
  for (const d of sorted)
    for (const c of d.commands)
      for (const p of [c.path, ...c.aliases]) {
        let prefix = p[0]!;
        for (let n = 1; n < p.length; n++) {
          own(prefix, d, () => `"${p.join(" ")}"`);
          prefix += ` ${p[n]}`;
        }
      }
}

/**
 * A publisher with `sources` installs only from them: the package's real
 * path must be one of them or inside one (`source_denied`).
 */
export function checkSource(p: TrustedPublisher, extensionId: string, realSource: string): void {
  if (p.sources === undefined) return;
  const inside = (dir: string) => {
    const d = dir.endsWith("/") ? dir : `${dir}/`;
    return realSource === dir || realSource.startsWith(d);
  };
  if (!p.sources.some(inside))
    throw new ProfileError(
      "source_denied",
      `publisher "${p.id}" installs only from ${p.sources.join(", ")}; ${extensionId} comes from ${realSource}`,
    );
}
