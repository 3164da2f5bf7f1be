// Opaque tokens, asked about (RFC 7662): the resource server posts the
// token to the issuer's introspection endpoint, authenticated as its own
// client, and reads back whether the token is active and what it grants.
// The answer is read with a limit and must be a JSON object; anything else
// is the issuer's trouble (503), never a verdict on the token.

import { ISSUED_IN_FUTURE, issuedInFuture } from "./_clock.js";
import { FETCH_TIMEOUT_MS, type IssuerMetadata, secureUrl, type Verdict } from "./_discovery.js";
import { boundedFetch, ISSUER_DOCUMENT_MAX_BYTES } from "./_fetch.js";

/**
 * How a resource server introspects opaque tokens.
 *
 * @example
 * const introspection: IntrospectionOptions = { clientId: "mcp-gateway", clientSecret: secret };
 */
export interface IntrospectionOptions {
  /** The endpoint; default the `introspection_endpoint` of the issuer's metadata. */
  readonly endpoint?: string;
  /** The resource server's own client id at the issuer. */
  readonly clientId: string;
  /** Its client secret (sent with HTTP Basic, RFC 6749 §2.3.1). */
  readonly clientSecret: string;
  /** How long an active answer is trusted before the issuer is asked again, in seconds (default 30, at most 300; never past the token's expiry). */
  readonly cacheSeconds?: number;
}

/** What the issuer answered about a token. */
export type Introspection =
  | { readonly kind: "active"; readonly claims: Readonly<Record<string, unknown>> }
  | { readonly kind: "inactive" }
  | { readonly kind: "unavailable"; readonly why: string };

const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");

/** Longest client id accepted. */
const CLIENT_ID_MAX = 256;

/** Throws a TypeError naming the first option that is wrong. */
export function checkIntrospection(o: IntrospectionOptions): void {
  if (typeof o.clientId !== "string" || o.clientId === "" || o.clientId.length > CLIENT_ID_MAX)
    throw new TypeError("introspection.clientId must be 1–256 characters");
  if (typeof o.clientSecret !== "string" || o.clientSecret === "")
    throw new TypeError("introspection.clientSecret must not be empty");
  if (o.endpoint !== undefined && !secureUrl(o.endpoint))
    throw new TypeError(
      `introspection.endpoint ${o.endpoint} must be https (http only on this machine)`,
    );
  const cache = o.cacheSeconds ?? 30;
  if (!Number.isInteger(cache) || cache < 0 || cache > 300)
    throw new TypeError("introspection.cacheSeconds must be an integer in 0..300");
}

/** An introspector of one issuer's opaque tokens for one resource: the verdict on each. */
export function createIntrospector(
  options: IntrospectionOptions,
  expect: Omit<AnswerExpectations, "now">,
  discovery: () => Promise<IssuerMetadata>,
): (token: string, now: number) => Promise<Verdict> {
  const endpoint = async (): Promise<string> =>
    options.endpoint ??
    (await discovery()).introspectionEndpoint ??
    Promise.reject(new Error("the issuer publishes no introspection_endpoint"));
  return async (token, now) => {
    let at: string;
    try {
      at = await endpoint();
    } catch {
      return { unavailable: true };
    }
    const answer = await introspect(at, options, token);
    if (answer.kind === "unavailable") return { unavailable: true };
    if (answer.kind === "inactive")
      return { invalid: "the issuer says it is not active (revoked, expired or unknown)" };
    const problem = answerProblem(answer.claims, { ...expect, now });
    return problem !== undefined ? { invalid: problem } : { claims: answer.claims };
  };
}

/** Asks `endpoint` about `token` as client `clientId`. */
export async function introspect(
  endpoint: string,
  options: IntrospectionOptions,
  token: string,
): Promise<Introspection> {
  const basic = Buffer.from(
    `${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`,
  ).toString("base64");
  let res: Response;
  try {
    res = await boundedFetch(
      endpoint,
      {
        method: "POST",
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        headers: {
          authorization: `Basic ${basic}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
      },
      ISSUER_DOCUMENT_MAX_BYTES,
    );
  } catch (e) {
    return { kind: "unavailable", why: (e as Error).message };
  }
  if (!res.ok) return { kind: "unavailable", why: `${endpoint} answered ${res.status}` };
  let body: unknown;
  try {
    body = JSON.parse(await res.text());
  } catch {
    return { kind: "unavailable", why: `${endpoint} answered something that is not JSON` };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { kind: "unavailable", why: `${endpoint} answered something that is not an object` };
  const claims = body as Record<string, unknown>;
  if (typeof claims.active !== "boolean")
    return { kind: "unavailable", why: `${endpoint} answered without a boolean "active"` };
  return claims.active ? { kind: "active", claims } : { kind: "inactive" };
}

/** What the resource server needs of an active answer beyond RFC 7662's `active`. */
export interface AnswerExpectations {
  readonly issuer: string;
  readonly resource: string;
  readonly toleranceSeconds: number;
  /** Now, in seconds since the epoch. */
  readonly now: number;
}

/**
 * Why an active answer does not let the token in here, in words a client
 * may see, or `undefined` when it does: it must name this issuer (when it
 * names one), this resource among its audiences, an expiry still ahead, no
 * `nbf` or `iat` ahead, and be a plain bearer token (not bound to a key).
 */
export function answerProblem(
  claims: Readonly<Record<string, unknown>>,
  expect: AnswerExpectations,
): string | undefined {
  const { now, toleranceSeconds: tol } = expect;
  if (claims.iss !== undefined && claims.iss !== expect.issuer)
    return "it was issued by another authorization server";
  const aud = typeof claims.aud === "string" ? [claims.aud] : claims.aud;
  if (!Array.isArray(aud) || !aud.includes(expect.resource))
    return "it was issued for another resource";
  if (typeof claims.exp !== "number") return "the issuer gives it no expiry";
  if (claims.exp + tol <= now) return "it has expired";
  if (typeof claims.nbf === "number" && claims.nbf - tol > now) return "it is not valid yet";
  if (issuedInFuture(claims, now, tol)) return ISSUED_IN_FUTURE;
  if (typeof claims.token_type === "string" && claims.token_type.toLowerCase() !== "bearer")
    return `it is a ${claims.token_type} token, not a bearer token`;
  if (typeof claims.cnf === "object" && claims.cnf !== null && Object.keys(claims.cnf).length > 0)
    return "it is bound to a key, and this endpoint takes bearer tokens only";
  return undefined;
}
