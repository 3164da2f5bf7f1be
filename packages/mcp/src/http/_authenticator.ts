// Who sent an HTTP request: what an endpoint's authenticator answers, from
// the request's credential (and, to share its work fairly, the peer that
// sent it).

import type { HostBinding } from "@rukh/core";

/**
 * Who sent a request, decided from its `Authorization` header alone: the
 * binding its credential proves, or the answer to send instead (401 with a
 * challenge, 403 for too little scope). The credential itself goes no further.
 * `peer` names where the request came from (an address, an IPv6 one as its
 * /64), for an authenticator that shares its work by peer; it never decides
 * who the request is from.
 *
 * @example
 * const auth: HttpAuthenticator = { metadata, authenticate: async (h, peer) => verifyBearer(h, peer) };
 */
export interface HttpAuthenticator {
  authenticate(authorization: string | undefined, peer?: string): Promise<HttpAuthOutcome>;
  /** The Protected Resource Metadata (RFC 9728) served at its well-known paths. */
  readonly metadata: object;
}

/** The result of {@link HttpAuthenticator.authenticate}. */
export type HttpAuthOutcome =
  | { readonly ok: true; readonly binding: HostBinding }
  | {
      readonly ok: false;
      readonly status: 400 | 401 | 403 | 503;
      /** The `WWW-Authenticate` value. */
      readonly challenge: string;
      readonly message: string;
      /** For a 503 that will pass: when to ask again, in seconds (sent as `Retry-After`). */
      readonly retryAfterSeconds?: number;
    };
