// The `WWW-Authenticate` answers of a bearer-token resource server (RFC 6750
// section 3, with RFC 9728's `resource_metadata`): what a client needs to
// find the authorization server and ask for the right token.

/** Why a request was refused, as RFC 6750 names it; absent when no token came at all. */
export type BearerError = "invalid_request" | "invalid_token" | "insufficient_scope";

/**
 * `text` in the characters RFC 6750 lets a challenge's values hold
 * (%x20-21 / %x23-5B / %x5D-7E: printable ASCII but `"` and `\`), so that
 * it is a header value Node sends whatever a message says: a double quote
 * becomes a single one, a backslash a slash, a dash a hyphen, and any other
 * character outside the set (line breaks, text beyond ASCII) `?`.
 *
 * @example
 * challengeText('1\u2013256 "chars"'); // "1-256 'chars'"
 */
function challengeText(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, "/")
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[^\x20-\x7e]/gu, "?");
}

const quoted = (value: string) => `"${challengeText(value)}"`;

/**
 * The `WWW-Authenticate` value of one refusal.
 *
 * @example
 * bearerChallenge({ metadataUrl, scope: ["mcp"] });
 * // 'Bearer resource_metadata="https://mcp.acme.test/.well-known/oauth-protected-resource/mcp", scope="mcp"'
 */
export function bearerChallenge(c: {
  readonly metadataUrl: string;
  readonly scope: readonly string[];
  readonly error?: BearerError;
  readonly description?: string;
}): string {
  const params = [
    ...(c.error !== undefined ? [`error=${quoted(c.error)}`] : []),
    ...(c.description !== undefined ? [`error_description=${quoted(c.description)}`] : []),
    `resource_metadata=${quoted(c.metadataUrl)}`,
    ...(c.scope.length > 0 ? [`scope=${quoted(c.scope.join(" "))}`] : []),
  ];
  return `Bearer ${params.join(", ")}`;
}
