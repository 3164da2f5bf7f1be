// Opaque tokens as the resource server checks them, at a bounded cost to
// the issuer. A token the issuer refused is refused again for a while
// without asking (the same garbage twice costs one question). A token it
// let in before is asked about again whenever its answer is due, outside
// any bound: only a real token gets there, one question at a time. Every
// other token, which anyone can make up, waits for the budget
// (`_budget.ts`) and is answered "try again later" past it, never
// "invalid": it was not looked at.

import { type BudgetLimits, createBudget, INTROSPECTION_BUDGET } from "./_budget.js";
import type { IssuerMetadata, Verdict } from "./_discovery.js";
import {
  type AnswerExpectations,
  createIntrospector,
  type IntrospectionOptions,
} from "./_introspect.js";

/** Refusals remembered, and for how long (seconds): a token once refused is not asked about again meanwhile. */
const REFUSED_MAX = 4_096;
const REFUSED_SECONDS = 30;
/** Tokens the issuer has let in, remembered until they expire: their next question skips the budget. */
const VOUCHED_MAX = 4_096;

/**
 * Checks one opaque token, known by its SHA-256 `digest`, at `now` (seconds
 * since the epoch), for `peer` (who sent it: the budget's places are shared
 * by peer).
 */
export type OpaqueCheck = (
  token: string,
  digest: string,
  now: number,
  peer?: string,
) => Promise<Verdict>;

/**
 * The opaque-token check of one resource server: the issuer's answers
 * (RFC 7662) behind a memory of refusals and of tokens let in, and a
 * bound on questions about any other token.
 *
 * @example
 * const check = createOpaqueCheck(introspection, { issuer, resource, toleranceSeconds: 30 }, discovery);
 * const verdict = await check(token, digest, Date.now() / 1000, "203.0.113.7");
 */
export function createOpaqueCheck(
  options: IntrospectionOptions,
  expect: Omit<AnswerExpectations, "now">,
  discovery: () => Promise<IssuerMetadata>,
  limits: BudgetLimits = INTROSPECTION_BUDGET,
): OpaqueCheck {
  const ask = createIntrospector(options, expect, discovery);
  const budget = createBudget(limits);
  /** Why each token was refused, and until when (seconds), oldest first. */
  const refused = new Map<string, { readonly why: string; readonly until: number }>();
  /** When each token the issuer let in expires (seconds), oldest first. */
  const vouched = new Map<string, number>();

  return async (token, digest, now, peer) => {
    const refusal = refused.get(digest);
    if (refusal !== undefined && refusal.until > now) return { invalid: refusal.why };
    refused.delete(digest);
    const known = (vouched.get(digest) ?? Number.NEGATIVE_INFINITY) > now;
    const verdict = known ? await ask(token, now) : await budget.run(() => ask(token, now), peer);
    if ("retryAfterSeconds" in verdict)
      return { busy: true, retryAfterSeconds: verdict.retryAfterSeconds };
    if ("invalid" in verdict) {
      vouched.delete(digest);
      remember(
        refused,
        digest,
        { why: verdict.invalid, until: now + REFUSED_SECONDS },
        REFUSED_MAX,
      );
    }
    if ("claims" in verdict) remember(vouched, digest, verdict.claims.exp as number, VOUCHED_MAX);
    return verdict;
  };
}

/** Sets `key` in `map`, forgetting the oldest entry first when `map` holds `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}
