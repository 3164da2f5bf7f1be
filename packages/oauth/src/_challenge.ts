// The `WWW-Authenticate` answers of a bearer-token resource server (RFC 6750
// section 3, with RFC 9728's `resource_metadata`): what a client needs to
// find the authorization server and ask for the right token.

/** Why a request was refused, as RFC 6750 names it; absent when no token came at all. */
export type BearerError = "invalid_request" | "invalid_token" | "insufficient_scope";

/** A quoted-string value: backslash and double quote escaped, control characters dropped. */
function quoted(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is dropped
  return `"${value.replace(/[\u0000-\u001f\u007f]/g, "").replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

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
