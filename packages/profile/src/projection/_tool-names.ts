// How MCP tools are named. Every name is a readable slug, `__`, and a
// fingerprint: the SHA-256 of ["rukh.mcp-tool/1", endpoint namespace,
// revision id, command identity], so each revision names its tools anew.
// A full name keeps all 64 hex digits. A client-fit name (`toolNames:
// "compact"`) is short enough for a client that prefixes names and hands them
// to a model API: the extension's last id word and the command, the
// revision's tag, and as few hex digits as tell the revision's tools apart.

import { sha256Hex } from "@rukh/json";
import { ProfileError } from "../model/index.js";

/** Longest slug of each form. */
const SLUG_MAX = { full: 48, compact: 24 } as const;

/**
 * The fewest and the most hex digits of a fingerprint a client-fit name
 * keeps. A revision whose tools need more than `max` to differ is refused
 * (`tool_name_conflict`).
 *
 * @example
 * CLIENT_FIT_DIGITS.min; // 4
 */
export const CLIENT_FIT_DIGITS: { readonly min: number; readonly max: number } = Object.freeze({
  min: 4,
  max: 12,
});

/** The revision tag's digits: letters no hex digit is, so a tag ends where the fingerprint starts. */
const TAG_LETTERS = "ghijklmnopqrstuvwxyz";
/** Most letters of a tag. */
const TAG_MAX = 4;
/** Revisions in one cycle of tags: 20^4. */
const TAG_CYCLE = TAG_LETTERS.length ** TAG_MAX;

/**
 * The longest tool name of each form, whatever the identity: the slug's
 * bound, `__`, and the fingerprint part (a client-fit name's tag and its
 * most digits).
 *
 * @example
 * TOOL_NAME_MAX_LENGTH.compact; // 42
 */
export const TOOL_NAME_MAX_LENGTH: { readonly full: number; readonly compact: number } =
  Object.freeze({
    full: SLUG_MAX.full + 2 + 64,
    compact: SLUG_MAX.compact + 2 + TAG_MAX + CLIENT_FIT_DIGITS.max,
  });

function slug(text: string, max: number): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "_")
    .slice(0, max);
}

/**
 * The fingerprint of each identity in a revision under a namespace: the
 * SHA-256 hex of ["rukh.mcp-tool/1", namespace, revision id, identity] in its
 * RFC 8785 form, the shared part of its text built once (a start names
 * 10,000 tools).
 *
 * @example
 * fingerprintOf("acme", revisionId)("acme.tools/greet"); // 64 hex digits
 */
export function fingerprintOf(namespace: string, revisionId: string): (identity: string) => string {
  // RFC 8785 serializes a string as JSON.stringify does.
  const head = `["rukh.mcp-tool/1",${JSON.stringify(namespace)},${JSON.stringify(revisionId)},`;
  return (identity) => sha256Hex(`${head}${JSON.stringify(identity)}]`);
}

/**
 * The full MCP tool name of a command in a revision: a slug of its identity
 * (at most 48 characters) and all 64 hex digits of its fingerprint.
 *
 * @example
 * toolName("acme", revisionId, "acme.files/count_lines"); // "acme_files_count_lines__3f…"
 */
export function toolName(namespace: string, revisionId: string, identity: string): string {
  return `${slug(identity, SLUG_MAX.full)}__${fingerprintOf(namespace, revisionId)(identity)}`;
}

/**
 * The slug of a client-fit name: the extension's last id word, `_` and the
 * command id, at most 24 characters; the word gives way first, so the
 * command is kept whole while it fits.
 *
 * @example
 * clientFitSlug("acme.tools/greet"); // "tools_greet"
 */
export function clientFitSlug(identity: string): string {
  const slash = identity.indexOf("/");
  const extension = identity.slice(0, slash);
  const word = extension.slice(extension.lastIndexOf(".") + 1);
  const command = slug(identity.slice(slash + 1), SLUG_MAX.compact);
  const room = SLUG_MAX.compact - command.length - 1;
  return room > 0 ? `${slug(word, room)}_${command}` : command;
}

/**
 * The longest name {@link toolName} or a client-fit naming can give
 * `identity`, without hashing: its slug, `__`, and the fingerprint part at
 * its longest (a client-fit name's longest tag and most digits).
 *
 * @example
 * toolNameLength("acme.files/count_lines", "compact"); // 35
 */
export function toolNameLength(identity: string, style: "full" | "compact"): number {
  if (style === "compact")
    return clientFitSlug(identity).length + 2 + TAG_MAX + CLIENT_FIT_DIGITS.max;
  return slug(identity, SLUG_MAX.full).length + 2 + 64;
}

/**
 * A revision's tag in a client-fit name: its sequence number (modulo
 * 160,000) in base 20, written with the letters g–z. No hex digit is one of
 * them, so where a name's tag ends is never in doubt, and two revisions
 * fewer than 160,000 publications apart never share a name.
 *
 * @example
 * revisionTag(21); // "hh"
 */
export function revisionTag(sequence: number): string {
  let n = sequence % TAG_CYCLE;
  let out = "";
  do {
    out = TAG_LETTERS[n % TAG_LETTERS.length] + out;
    n = Math.floor(n / TAG_LETTERS.length);
  } while (n > 0);
  return out;
}

/**
 * The fewest hex digits (at least {@link CLIENT_FIT_DIGITS}.min) at which
 * every two entries with one slug have different fingerprints; or, when even
 * {@link CLIENT_FIT_DIGITS}.max are not enough, the indexes of two entries
 * that still clash.
 *
 * @example
 * digitsNeeded([["tools_greet", fpA], ["tools_greet", fpB]]); // { digits: 4 }
 */
export function digitsNeeded(
  entries: readonly (readonly [slug: string, fingerprint: string])[],
): { readonly digits: number } | { readonly clash: readonly [number, number] } {
  const bySlug = new Map<string, number[]>();
  entries.forEach(([s], i) => {
    const group = bySlug.get(s);
    if (group === undefined) bySlug.set(s, [i]);
    else group.push(i);
  });
  let digits = CLIENT_FIT_DIGITS.min;
  for (const group of bySlug.values()) {
    if (group.length < 2) continue;
    // Sorted, the longest prefix any two share is one that neighbours share.
    const sorted = [...group].sort((a, b) => (entries[a]![1] < entries[b]![1] ? -1 : 1));
    for (let k = 1; k < sorted.length; k++) {
      const a = entries[sorted[k - 1]!]![1];
      const b = entries[sorted[k]!]![1];
      let shared = 0;
      while (shared < a.length && a[shared] === b[shared]) shared++;
      if (shared >= CLIENT_FIT_DIGITS.max) {
        const pair = [sorted[k - 1]!, sorted[k]!].sort((x, y) => x - y);
        return { clash: [pair[0]!, pair[1]!] };
      }
      digits = Math.max(digits, shared + 1);
    }
  }
  return { digits };
}

/** What one client-fit name is made of. */
export interface ClientFitNameParts {
  readonly namespace: string;
  readonly revisionId: string;
  /** The revision's sequence number, which its tag writes. */
  readonly sequence: number;
  readonly identity: string;
  /** How many hex digits of the fingerprint the revision's names keep. */
  readonly digits: number;
}

/**
 * The client-fit name of a command: its slug, `__`, the revision's tag and
 * the first `digits` hex digits of its fingerprint.
 *
 * @example
 * clientFitName({ namespace, revisionId, sequence: 7, identity: "acme.tools/greet", digits: 4 }); // "tools_greet__n3f2a"
 */
export function clientFitName(parts: ClientFitNameParts): string {
  const fp = fingerprintOf(parts.namespace, parts.revisionId)(parts.identity);
  return `${clientFitSlug(parts.identity)}__${revisionTag(parts.sequence)}${fp.slice(0, parts.digits)}`;
}

/** The revision a set of client-fit names is made in. */
export interface ClientFitRevision {
  readonly revisionId: string;
  readonly sequence: number;
}

/**
 * The digits the client-fit names of `identities` under each of `namespaces`
 * keep: the fewest that tell every two entries with one slug apart.
 * `fingerprint(n, i)` is asked only for identities whose slug another entry
 * shares (no other name can clash), in the order the entries come. Throws
 * `tool_name_conflict` naming two identities when no number up to
 * {@link CLIENT_FIT_DIGITS}.max does.
 */
function neededDigits(
  namespaces: readonly string[],
  identities: readonly string[],
  slugs: readonly string[],
  fingerprint: (namespace: number, identity: number) => string,
): number {
  const perSlug = new Map<string, number>();
  for (const s of slugs) perSlug.set(s, (perSlug.get(s) ?? 0) + 1);
  const entries: [string, string][] = [];
  const owners: number[] = [];
  namespaces.forEach((_, n) => {
    slugs.forEach((s, i) => {
      if (perSlug.get(s)! * namespaces.length < 2) return;
      entries.push([s, fingerprint(n, i)]);
      owners.push(i);
    });
  });
  const need = digitsNeeded(entries);
  if ("clash" in need) {
    const [a, b] = need.clash.map((e) => identities[owners[e]!]!);
    throw new ProfileError(
      "tool_name_conflict",
      `the client-fit names of ${a} and ${b} share their first ${CLIENT_FIT_DIGITS.max} fingerprint digits in this revision; publish again (another revision names them anew) or rename one command`,
    );
  }
  return need.digits;
}

/**
 * Checks that the client-fit names of `identities` under each of
 * `namespaces` can be told apart within {@link CLIENT_FIT_DIGITS}.max
 * digits, hashing only the identities whose slug is shared; throws
 * `tool_name_conflict` as {@link clientFitNames} would.
 */
export function checkClientFitDigits(
  revision: ClientFitRevision,
  namespaces: readonly string[],
  identities: readonly string[],
): void {
  const fingerprints = namespaces.map((ns) => fingerprintOf(ns, revision.revisionId));
  neededDigits(namespaces, identities, identities.map(clientFitSlug), (n, i) =>
    fingerprints[n]!(identities[i]!),
  );
}

/**
 * The client-fit names of `identities` under each of `namespaces` (the
 * revision's client-fit namings), all with one number of digits: the fewest
 * that make every name of every one of them distinct. Throws
 * `tool_name_conflict` naming two identities when no number up to
 * {@link CLIENT_FIT_DIGITS}.max does.
 */
export function clientFitNames(
  revision: ClientFitRevision,
  namespaces: readonly string[],
  identities: readonly string[],
): Map<string, Map<string, string>> {
  const slugs = identities.map(clientFitSlug);
  const fingerprints = namespaces.map((ns) =>
    identities.map(fingerprintOf(ns, revision.revisionId)),
  );
  const digits = neededDigits(namespaces, identities, slugs, (n, i) => fingerprints[n]![i]!);
  const tag = revisionTag(revision.sequence);
  return new Map(
    namespaces.map((ns, n) => [
      ns,
      new Map(
        identities.map((identity, i) => [
          identity,
          `${slugs[i]}__${tag}${fingerprints[n]![i]!.slice(0, digits)}`,
        ]),
      ),
    ]),
  );
}
