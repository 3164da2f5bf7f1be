// The parts of a command identity (`<extension id>/<command id>`) that
// presets, hints and listings match on.

/**
 * The extension id of a command identity.
 *
 * @example
 * extensionOf("acme.files/count"); // "acme.files"
 */
export const extensionOf = (identity: string): string => identity.slice(0, identity.indexOf("/"));

/**
 * The pattern that names every command of the identity's extension.
 *
 * @example
 * extensionPattern("acme.files/count"); // "acme.files/*"
 */
export const extensionPattern = (identity: string): string => `${extensionOf(identity)}/*`;

/**
 * The entry of a per-command record an owner keys by identity or by
 * `<extension id>/*` (a preset's `hints`, its `tasks`) that holds for
 * `identity`: its own entry, else its extension's; undefined when neither.
 *
 * @example
 * entryFor({ "acme.files/*": "forbidden" }, "acme.files/count"); // "forbidden"
 */
export function entryFor<T>(
  record: { readonly [identityOrPattern: string]: T } | undefined,
  identity: string,
): T | undefined {
  if (record === undefined) return undefined;
  return Object.hasOwn(record, identity) ? record[identity] : record[extensionPattern(identity)];
}
