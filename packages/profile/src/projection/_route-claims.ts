// Which CLI path names which command: the claims every extension's commands,
// aliases and groups make, checked for conflicts across extensions, and the
// route table built from them. A publication that carries an extension over
// from its base checks it from its routing alone (kept in the catalog), never
// parsing its descriptor again.

import { type CommandSpec, cliSpec, type ExtensionDescriptor } from "@rukh/descriptor";
import { sha256Hex } from "@rukh/json";
import {
  type CliGroup,
  type CliRoute,
  type CliRouteTable,
  type LoadedExtension,
  ProfileError,
  type Routing,
} from "../model/index.js";

/**
 * The routing of a descriptor as a plain object, in the key order a
 * catalog line holds it.
 */
export function routingOf(d: ExtensionDescriptor): Routing {
  return {
    id: d.id,
    publisher: d.publisher,
    groups: d.groups,
    commands: d.commands.map((c) => ({ identity: c.identity, path: c.path, aliases: c.aliases })),
  };
}

/** The first word of a CLI path written as one string ("g a" is under "g"). */
export const firstWord = (key: string): string => {
  const at = key.indexOf(" ");
  return at === -1 ? key : key.slice(0, at);
};

const byFirst = <T>(a: readonly [string, T], b: readonly [string, T]) => (a[0] < b[0] ? -1 : 1);

/**
 * Per first word, the fingerprint of which identity each CLI path and alias
 * under it names: the route cache keeps one per bucket, so that a
 * publication recomputes only the words its changes touch.
 */
export function wordKeysOf(owners: ReadonlyMap<string, string>): Map<string, string> {
  const byWord = new Map<string, [string, string][]>();
  for (const pair of owners) {
    const w = firstWord(pair[0]);
    const list = byWord.get(w);
    if (list === undefined) byWord.set(w, [pair]);
    else list.push(pair);
  }
  const keys = new Map<string, string>();
  // fingerprint() of the sorted pairs, written out: RFC 8785 serializes an
  // array of strings as JSON.stringify does (paths and identities are
  // validated text).
  for (const [w, pairs] of byWord) keys.set(w, sha256Hex(JSON.stringify(pairs.sort(byFirst))));
  return keys;
}

/** The fingerprint of which identity each CLI path (and alias) names, from its words' keys: what `commandGeneration` counts changes of. */
export function routeKeyOfWords(wordKeys: ReadonlyMap<string, string>): string {
  return sha256Hex(JSON.stringify([...wordKeys].sort(byFirst)));
}

/** The paths and aliases of `extensions`, each with the identity it names. */
function ownersOf(extensions: readonly Routing[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const { commands } of extensions)
    for (const command of commands) {
      owners.set(command.path.join(" "), command.identity);
      for (const alias of command.aliases) owners.set(alias.join(" "), command.identity);
    }
  return owners;
}

/**
 * The route key of extensions already known to route without conflict (a
 * published revision's): what {@link claimRoutes} would compute, without
 * checking anything.
 */
export function routeKeyOfPublished(extensions: readonly Routing[]): string {
  return routeKeyOfWords(wordKeysOf(ownersOf(extensions)));
}

/** The word keys of `extensions`' paths under the words `words` (see {@link wordKeysOf}). */
export function wordKeysUnder(
  extensions: readonly Routing[],
  words: ReadonlySet<string>,
): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [key, identity] of ownersOf(extensions))
    if (words.has(firstWord(key))) owners.set(key, identity);
  return wordKeysOf(owners);
}

const byId = <T extends { readonly id: string }>(list: readonly T[]) =>
  [...list].sort((a, b) => (a.id < b.id ? -1 : 1));

/**
 * Checks that every path, alias and group names one thing across the
 * extensions (`route_conflict`) and returns the groups, sorted by path, with
 * the route key.
 */
export function claimRoutes(extensions: readonly Routing[]): {
  groups: CliGroup[];
  routeKey: string;
  wordKeys: Map<string, string>;
} {
  const owners = new Map<string, string>();
  const groups = new Map<string, { group: Omit<CliGroup, "extensions">; extensions: string[] }>();
  const claim = (path: readonly string[], identity: string, how: string) => {
    const key = path.join(" ");
    const prior = owners.get(key);
    if (prior !== undefined && prior !== identity)
      throw new ProfileError(
        "route_conflict",
        `CLI path "${key}" (${how} of ${identity}) is already taken by ${prior}; each path must resolve to one command`,
      );
    owners.set(key, identity);
  };
  for (const e of byId(extensions)) {
    for (const command of e.commands) {
      claim(command.path, command.identity, "path");
      for (const alias of command.aliases) claim(alias, command.identity, "alias");
    }
    for (const g of e.groups) {
      const key = g.path.join(" ");
      const prior = groups.get(key);
      if (prior === undefined)
        groups.set(key, {
          group: {
            path: g.path,
            summary: g.summary,
            ...(g.description !== undefined && { description: g.description }),
          },
          extensions: [e.id],
        });
      else prior.extensions.push(e.id);
    }
  }
  // A path that is a proper prefix of another command's path would be a command
  // and a group at once; within one extension the descriptor rejects it, across
  // extensions it is caught here.
  for (const [key, identity] of owners) {
    let at = key.indexOf(" ");
    while (at !== -1) {
      const prefix = key.slice(0, at);
      const owner = owners.get(prefix);
      if (owner !== undefined)
        throw new ProfileError(
          "route_conflict",
          `CLI path "${prefix}" is the command ${owner} and also a group holding "${key}" (${identity})`,
        );
      at = key.indexOf(" ", at + 1);
    }
  }
  for (const key of groups.keys()) {
    const owner = owners.get(key);
    if (owner !== undefined)
      throw new ProfileError(
        "route_conflict",
        `CLI path "${key}" is both a group and the command ${owner}`,
      );
  }
  const groupList = [...groups.values()]
    .map(({ group, extensions: e }) => ({ ...group, extensions: e }))
    .sort((a, b) => (a.path.join(" ") < b.path.join(" ") ? -1 : 1));
  const wordKeys = wordKeysOf(owners);
  return { groups: groupList, routeKey: routeKeyOfWords(wordKeys), wordKeys };
}

/** One command's route. */
export function routeOf(extension: string, command: CommandSpec): CliRoute {
  return {
    extension,
    identity: command.identity,
    path: command.path,
    aliases: command.aliases,
    cli: cliSpec(command),
  };
}

/** Builds the route table; throws `route_conflict` when two commands claim one path. */
export function buildRoutes(extensions: readonly LoadedExtension[]): {
  routes: CliRouteTable;
  routeKey: string;
  wordKeys: Map<string, string>;
} {
  const { groups, routeKey, wordKeys } = claimRoutes(extensions.map((l) => l.descriptor));
  const commands: CliRoute[] = [];
  for (const { descriptor } of extensions)
    for (const command of descriptor.commands) commands.push(routeOf(descriptor.id, command));
  commands.sort((a, b) => (a.path.join(" ") < b.path.join(" ") ? -1 : 1));
  return { routes: { commands, groups }, routeKey, wordKeys };
}
