// What a token's claims say about its caller: the scopes it grants, and
// the names the call is bound to (subject, actor, grant). A claim that is
// present is used as it is or refuses the token; it is never passed over
// for the next claim in line.

import type { JWTPayload } from "jose";

/** Longest a subject or actor taken from a token may be (the core's bound on a binding's fields). */
const CLAIM_MAX = 256;
/** Longest `jti` taken: the journal names the grant `jti:<jti>`, within the same bound. */
const JTI_MAX = CLAIM_MAX - "jti:".length;

/** The scopes a token grants: `scope` (space-separated), else `scp` (a list). */
export function scopesOf(p: JWTPayload): string[] {
  if (typeof p.scope === "string") return p.scope.split(" ").filter((s) => s !== "");
  if (Array.isArray(p.scp)) return p.scp.filter((s): s is string => typeof s === "string");
  return [];
}

/** What a token's claims name, or why they cannot name it. */
export type Names =
  | { readonly subject: string; readonly actor: string; readonly jti: string | undefined }
  | { readonly problem: string };

/**
 * The subject (`sub`; for a client's own token without one, the client),
 * the actor (`client_id`, else `azp`, else the subject) and the `jti` of a
 * token. A claim that is present must be usable as it is: one that is not a
 * string of 1 to 256 characters (252 for `jti`) refuses the token, and is
 * never passed over for the next claim in line.
 */
export function namesOf(claims: JWTPayload): Names {
  const sub = nameClaim(claims, "sub", CLAIM_MAX);
  if (typeof sub === "object") return sub;
  const client = nameClaim(claims, "client_id", CLAIM_MAX);
  if (typeof client === "object") return client;
  const azp = client === undefined ? nameClaim(claims, "azp", CLAIM_MAX) : undefined;
  if (typeof azp === "object") return azp;
  const jti = nameClaim(claims, "jti", JTI_MAX);
  if (typeof jti === "object") return jti;
  // A client's own token (client credentials, introspected) may have no sub: the client is its subject.
  const subject = sub ?? client;
  if (subject === undefined) return { problem: "it names no subject (neither sub nor client_id)" };
  return { subject, actor: client ?? azp ?? subject, jti };
}

/** `claims[key]`: absent (`undefined`), a usable string, or why it is not one. */
function nameClaim(
  claims: JWTPayload,
  key: string,
  max: number,
): string | undefined | { readonly problem: string } {
  const v = claims[key];
  if (v === undefined) return undefined;
  if (typeof v === "string" && v.length > 0 && v.length <= max) return v;
  return { problem: `its ${key} claim must be a string of 1 to ${max} characters` };
}
