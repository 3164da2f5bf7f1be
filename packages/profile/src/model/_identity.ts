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
