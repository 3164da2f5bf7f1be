// Signed JWT access tokens (RFC 9068), verified here: signed by the issuer
// with a key from its published set (fetched when first needed, and again,
// at most once per cooldown, for a key id the cached set lacks, so the
// issuer can rotate), typed `at+jwt`, naming this issuer and this resource,
// inside their validity window and issued no later than now (with the
// tolerance).

import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey, jwtVerify } from "jose";
import { ISSUED_IN_FUTURE, issuedInFuture } from "./_clock.js";
import { FETCH_TIMEOUT_MS, type IssuerMetadata, type Verdict } from "./_discovery.js";
import { boundedFetch, ISSUER_DOCUMENT_MAX_BYTES } from "./_fetch.js";

/** What a JWT verifier checks against. */
export interface JwtChecks {
  readonly issuer: string;
  readonly resource: string;
  readonly algorithms: readonly string[];
  readonly toleranceSeconds: number;
  /** The key set; default the issuer's `jwks_uri`. */
  readonly jwksUri?: string;
  readonly jwksCooldownMs?: number;
}

/** A verifier of one issuer's JWTs for one resource. */
export function createJwtVerifier(
  checks: JwtChecks,
  discovery: () => Promise<IssuerMetadata>,
): (token: string) => Promise<Verdict> {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = (): Promise<JWTVerifyGetKey> => {
    if (keys !== undefined) return keys;
    const at =
      checks.jwksUri !== undefined
        ? Promise.resolve(checks.jwksUri)
        : discovery().then((m) => m.jwksUri ?? Promise.reject(new Error("no jwks_uri")));
    keys = at.then((u) =>
      createRemoteJWKSet(new URL(u), {
        cooldownDuration: checks.jwksCooldownMs ?? 30_000,
        timeoutDuration: FETCH_TIMEOUT_MS,
        [customFetch]: (input: string | URL | Request, init?: RequestInit) =>
          boundedFetch(input, init, ISSUER_DOCUMENT_MAX_BYTES),
      }),
    );
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };

  return async (token) => {
    let getKey: JWTVerifyGetKey;
    try {
      getKey = await keySet();
    } catch {
      return { unavailable: true };
    }
    try {
      const { payload } = await jwtVerify(token, getKey, {
        issuer: checks.issuer,
        audience: checks.resource,
        algorithms: [...checks.algorithms],
        clockTolerance: checks.toleranceSeconds,
        typ: "at+jwt",
        requiredClaims: ["exp", "sub"],
      });
      // jose checks iat against the clock only when a maximum age is set: the tolerance holds here.
      if (issuedInFuture(payload, Date.now() / 1000, checks.toleranceSeconds))
        return { invalid: ISSUED_IN_FUTURE };
      return { claims: payload };
    } catch (e) {
      // A key set that cannot be fetched or read is the issuer's trouble, not the token's.
      if (
        e instanceof errors.JWKSTimeout ||
        e instanceof errors.JWKSInvalid ||
        !(e instanceof errors.JOSEError) ||
        e.code === "ERR_JOSE_GENERIC"
      )
        return { unavailable: true };
      return { invalid: reason(e) };
    }
  };
}

/** What was wrong with a token, in words a client may see. */
function reason(e: unknown): string {
  if (e instanceof errors.JWTExpired) return "it has expired";
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "nbf") return "it is not valid yet";
    if (e.claim === "aud") return "it was issued for another resource";
    if (e.claim === "iss") return "it was issued by another authorization server";
    return `its ${e.claim} claim is not acceptable`;
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return "its signature does not verify";
  if (e instanceof errors.JWKSNoMatchingKey)
    return "it is signed with a key the issuer does not publish";
  if (e instanceof errors.JOSEAlgNotAllowed) return "its signature algorithm is not accepted";
  return "it is malformed";
}
