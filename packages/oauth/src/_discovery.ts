// What an issuer says about itself (RFC 8414, else OpenID discovery): where
// its key set is, and where it introspects tokens. The document must name
// the issuer it was asked about, and every address in it must be https
// (plain http only on this machine).

import { boundedFetch, ISSUER_DOCUMENT_MAX_BYTES } from "./_fetch.js";

/** How long a metadata, key-set or introspection request may take. */
export const FETCH_TIMEOUT_MS = 5_000;
/** How long a failed discovery is not tried again. */
const DISCOVERY_RETRY_MS = 5_000;

/** What a token check concluded: the claims it proved, or why not (the token's fault, the issuer's trouble, or no check for now). */
export type Verdict =
  | { readonly claims: Readonly<Record<string, unknown>> }
  | { readonly invalid: string }
  | { readonly unavailable: true }
  /** Not checked: the questions to the issuer are over their bound; ask again after so many seconds. */
  | { readonly busy: true; readonly retryAfterSeconds: number };

/**
 * The issuer's metadata, fetched when first asked for and kept; a failed
 * fetch is not tried again for a few seconds, so a down issuer is not
 * hammered by every request.
 */
export function createDiscovery(issuer: string): () => Promise<IssuerMetadata> {
  let discovered: Promise<IssuerMetadata> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  return () => {
    if (discovered === undefined && Date.now() - failedAt < DISCOVERY_RETRY_MS)
      return Promise.reject(new Error("the issuer's metadata could not be fetched a moment ago"));
    if (discovered === undefined) {
      discovered = issuerMetadata(issuer);
      discovered.catch(() => {
        discovered = undefined;
        failedAt = Date.now();
      });
    }
    return discovered;
  };
}

/** The addresses of an issuer that a resource server uses. */
export interface IssuerMetadata {
  readonly jwksUri?: string;
  readonly introspectionEndpoint?: string;
}

/** Whether `u` may be fetched for credentials: https, or http on this machine. */
export function secureUrl(u: string): boolean {
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    return false;
  }
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  return url.protocol === "https:" || (url.protocol === "http:" && local);
}

/** The issuer's metadata, from the first well-known document it serves; throws naming what failed. */
export async function issuerMetadata(issuer: string): Promise<IssuerMetadata> {
  const base = issuer.replace(/\/$/, "");
  const origin = new URL(issuer).origin;
  const path = new URL(issuer).pathname.replace(/\/$/, "");
  const candidates = [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${base}/.well-known/openid-configuration`,
  ];
  for (const at of candidates) {
    const res = await boundedFetch(
      at,
      { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: "application/json" } },
      ISSUER_DOCUMENT_MAX_BYTES,
    ).catch(() => undefined);
    if (res === undefined || !res.ok) continue;
    const meta = JSON.parse(await res.text()) as {
      issuer?: unknown;
      jwks_uri?: unknown;
      introspection_endpoint?: unknown;
    };
    if (meta.issuer !== issuer)
      throw new Error(`${at} names issuer ${JSON.stringify(meta.issuer)}, not ${issuer}`);
    const address = (name: string, v: unknown): string | undefined => {
      if (v === undefined) return undefined;
      if (typeof v !== "string" || !secureUrl(v))
        throw new Error(`${at} names a ${name} that is not https: ${JSON.stringify(v)}`);
      return v;
    };
    const jwksUri = address("jwks_uri", meta.jwks_uri);
    const introspectionEndpoint = address("introspection_endpoint", meta.introspection_endpoint);
    return {
      ...(jwksUri !== undefined && { jwksUri }),
      ...(introspectionEndpoint !== undefined && { introspectionEndpoint }),
    };
  }
  throw new Error(`no authorization server metadata at ${candidates.join(" or ")}`);
}
