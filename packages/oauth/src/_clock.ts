// The one time check jose leaves to its caller: a token's `iat` may not be
// further ahead of this server's clock than the tolerance allows, whether
// the token is a JWT verified here or an opaque one the issuer answered for.

/** Why a token issued ahead of the clock is refused, in words a client may see. */
export const ISSUED_IN_FUTURE =
  "it was issued in the future (its iat is ahead of this server's clock)";

/**
 * Whether `claims.iat`, when it is a number, lies more than `toleranceSeconds`
 * after `now` (seconds since the epoch).
 *
 * @example
 * issuedInFuture({ iat: now + 600 }, now, 30); // true
 */
export function issuedInFuture(
  claims: Readonly<Record<string, unknown>>,
  now: number,
  toleranceSeconds: number,
): boolean {
  return typeof claims.iat === "number" && claims.iat - toleranceSeconds > now;
}
