// A resource server for one endpoint: every request's bearer token is a JWT
// access token (RFC 9068) signed by the configured issuer with a key from
// its published set, or, where the owner configures it, an opaque token the
// issuer vouches for when asked (RFC 7662); either way issued for this
// resource (RFC 8707), in its validity window, with the scopes the endpoint
// requires. What it proves becomes the call's binding; the token itself goes
// no further than this file.

import { createHash } from "node:crypto";
import type { JWTPayload } from "jose";
import { type BearerError, bearerChallenge } from "./_challenge.js";
import { namesOf, scopesOf } from "./_claims.js";
import { createDiscovery, FETCH_TIMEOUT_MS, type Verdict } from "./_discovery.js";
import { checkIntrospection, type IntrospectionOptions } from "./_introspect.js";
import { createJwtVerifier } from "./_jwt.js";
import { createOpaqueCheck } from "./_opaque.js";

/** Longest `Authorization` header read, in characters. */
const AUTHORIZATION_MAX = 8_192;
/** Tokens whose verification is remembered (a client sends the same one with every request). */
const VERIFIED_MAX = 512;
/**
 * Distinct tokens checked at once; one more is told to come back. A check
 * ends within a fetch's timeout, so this bounds what a flood can hold while
 * the issuer is slow.
 */
const PENDING_MAX = 1_024;
/** What a signed JWT looks like: only such a token costs a key fetch. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** A token's scope that selects a preset (first match wins). */
export interface ScopePreset {
  readonly scope: string;
  readonly preset: string;
}

/**
 * Options of {@link createResourceServer}.
 *
 * @example
 * const options: ResourceServerOptions = { resource: "https://mcp.acme.test/mcp",
 *   issuer: "https://login.acme.test", requiredScopes: ["mcp"], defaultPreset: "agent" };
 */
export interface ResourceServerOptions {
  /** The endpoint's canonical URL: every token's audience must name it. */
  readonly resource: string;
  /** The authorization server's issuer identifier. */
  readonly issuer: string;
  /** Its key set; default the `jwks_uri` of its metadata (RFC 8414, else OpenID discovery). */
  readonly jwksUri?: string;
  /** Scopes every request's token must carry. */
  readonly requiredScopes?: readonly string[];
  /** Scopes that choose the preset, first match first. */
  readonly presets?: readonly ScopePreset[];
  /** The preset of a token no entry of `presets` matches. */
  readonly defaultPreset: string;
  /** Accepted clock difference for `exp`, `nbf` and `iat`, in seconds (default 30, at most 300). */
  readonly clockToleranceSeconds?: number;
  /** Signature algorithms accepted (default RS256, PS256, ES256, EdDSA). */
  readonly algorithms?: readonly string[];
  /** Least time between two key-set fetches on an unknown key id, in ms (default 30 000). */
  readonly jwksCooldownMs?: number;
  /** Accept opaque tokens too, asking the issuer about each (RFC 7662); JWTs are still verified here. */
  readonly introspection?: IntrospectionOptions;
}

/** What a request's token proved: the binding of its calls. */
export interface TokenBinding {
  /** `sub`. */
  readonly subject: string;
  /** The OAuth client: `client_id`, else `azp`, else the subject. */
  readonly actor: string;
  /** `jti`, else a digest of the token: it names this grant in the journal, never the token. */
  readonly taskAuthorityRef: string;
  readonly preset: string;
}

/** The answer to one request's `Authorization` header. */
export type Authentication =
  | { readonly ok: true; readonly binding: TokenBinding; readonly scopes: readonly string[] }
  | {
      readonly ok: false;
      readonly status: 400 | 401 | 403 | 503;
      readonly challenge: string;
      readonly message: string;
      /** For a 503 that will pass: when to ask again, in seconds (the `Retry-After` header). */
      readonly retryAfterSeconds?: number;
    };

/** An {@link Authentication} that refuses. */
export type Refusal = Extract<Authentication, { readonly ok: false }>;

/**
 * An endpoint's resource server: {@link ResourceServer.authenticate} for
 * each request and the Protected Resource Metadata to publish.
 *
 * @example
 * const rs = createResourceServer(options);
 * const who = await rs.authenticate(request.headers.authorization, request.socket.remoteAddress);
 */
export interface ResourceServer {
  /**
   * The answer to one request's `Authorization` header. `peer` names who
   * sent it (an address): questions to the issuer about tokens never let in
   * are shared fairly by peer, so one peer's flood keeps no other out.
   */
  authenticate(authorization: string | undefined, peer?: string): Promise<Authentication>;
  /** The RFC 9728 document (`resource`, `authorization_servers`, `scopes_supported`, …). */
  readonly metadata: {
    readonly resource: string;
    readonly authorization_servers: readonly string[];
    readonly scopes_supported: readonly string[];
    readonly bearer_methods_supported: readonly string[];
  };
  /** Where the metadata is published: the well-known path suffixed with the resource's path. */
  readonly metadataUrl: string;
}

/**
 * A resource server for `options.resource`, trusting tokens of `options.issuer`.
 * Keys are fetched when first needed and again (at most once per cooldown)
 * when a token names a key the cached set lacks, so the issuer can rotate.
 *
 * @example
 * const rs = createResourceServer({ resource, issuer, defaultPreset: "agent" });
 */
export function createResourceServer(options: ResourceServerOptions): ResourceServer {
  const resource = canonical(options.resource, "resource");
  const issuer = options.issuer;
  canonical(issuer, "issuer");
  const required = [...(options.requiredScopes ?? [])];
  const presets = [...(options.presets ?? [])];
  const tolerance = options.clockToleranceSeconds ?? 30;
  if (!Number.isInteger(tolerance) || tolerance < 0 || tolerance > 300)
    throw new TypeError("clockToleranceSeconds must be an integer in 0..300");
  const introspection = options.introspection;
  const cacheSeconds = introspection?.cacheSeconds ?? 30;
  if (introspection !== undefined) checkIntrospection(introspection);
  const algorithms = [...(options.algorithms ?? ["RS256", "PS256", "ES256", "EdDSA"])];
  const url = new URL(resource);
  const metadataUrl = `${url.origin}/.well-known/oauth-protected-resource${url.pathname === "/" ? "" : url.pathname}`;
  const scopes = [...new Set([...required, ...presets.map((p) => p.scope)])];
  const metadata = Object.freeze({
    resource,
    authorization_servers: Object.freeze([issuer]),
    scopes_supported: Object.freeze(scopes),
    bearer_methods_supported: Object.freeze(["header"]),
  });

  const discovery = createDiscovery(issuer);
  const verifyJwt = createJwtVerifier(
    {
      issuer,
      resource,
      algorithms,
      toleranceSeconds: tolerance,
      ...(options.jwksUri !== undefined && { jwksUri: options.jwksUri }),
      ...(options.jwksCooldownMs !== undefined && { jwksCooldownMs: options.jwksCooldownMs }),
    },
    discovery,
  );
  const checkOpaque =
    introspection === undefined
      ? undefined
      : createOpaqueCheck(
          introspection,
          { issuer, resource, toleranceSeconds: tolerance },
          discovery,
        );

  /** Tokens let in, by the token's SHA-256, oldest first, each until a time (seconds). */
  const verified = new Map<string, { readonly claims: JWTPayload; readonly until: number }>();
  /** Checks under way, by the token's SHA-256. */
  const pending = new Map<string, Promise<Verdict>>();
  const remember = (digest: string, claims: JWTPayload, until: number) => {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(digest, { claims, until });
  };

  const refuse = (
    status: 400 | 401 | 403 | 503,
    message: string,
    error?: BearerError,
    scope: readonly string[] = required,
  ): Refusal => ({
    ok: false,
    status,
    message,
    challenge: bearerChallenge({
      metadataUrl,
      scope,
      ...(error !== undefined && { error, description: message }),
    }),
  });
  const invalid = (why: string) =>
    refuse(401, `the bearer token is not valid here: ${why}`, "invalid_token");

  async function authenticate(
    authorization: string | undefined,
    peer?: string,
  ): Promise<Authentication> {
    if (authorization === undefined || authorization === "")
      return refuse(401, "Unauthorized: this endpoint needs a bearer token");
    if (authorization.length > AUTHORIZATION_MAX)
      return refuse(400, "the Authorization header is too long", "invalid_request");
    const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization);
    if (m === null)
      return refuse(400, "the Authorization header must be one Bearer token", "invalid_request");
    const token = m[1]!;
    const jwt = JWT_SHAPE.test(token);
    // Without introspection, only what could be a signed JWT is worth a fetch.
    if (!jwt && checkOpaque === undefined) return invalid("it is malformed");
    // A token let in before is let in still, until its time is up: its bytes are the same.
    const digest = createHash("sha256").update(token).digest("hex");
    const now = Date.now() / 1000;
    const known = verified.get(digest);
    let claims: JWTPayload;
    if (known !== undefined && known.until > now) claims = known.claims;
    else {
      verified.delete(digest);
      // Requests that carry the same token at once share one check (one question to the issuer).
      let checking = pending.get(digest);
      if (checking === undefined && pending.size >= PENDING_MAX) checking = BUSY;
      if (checking === undefined) {
        checking = (jwt ? verifyJwt(token) : checkOpaque!(token, digest, now, peer)).finally(() =>
          pending.delete(digest),
        );
        pending.set(digest, checking);
      }
      const got = await checking;
      // What failed names internal addresses: it is not for the client.
      if ("unavailable" in got)
        return refuse(
          503,
          jwt
            ? "the issuer's keys cannot be fetched now; try again later"
            : "the issuer cannot be asked about the token now; try again later",
        );
      // Not looked at, so not refused as invalid: the client is told when to come back (RFC 9110, 503).
      if ("busy" in got)
        return {
          ...refuse(
            503,
            `too many tokens are being checked now; try again in ${got.retryAfterSeconds} s`,
          ),
          retryAfterSeconds: got.retryAfterSeconds,
        };
      if ("invalid" in got) return invalid(got.invalid);
      claims = got.claims as JWTPayload;
      const expires = (claims.exp as number) + tolerance;
      remember(digest, claims, jwt ? expires : Math.min(expires, now + cacheSeconds));
    }
    return bind(claims, digest);
  }

  function bind(claims: JWTPayload, digest: string): Authentication {
    // A claim that is there names who it says or refuses the token: another claim never stands in for it.
    const names = namesOf(claims);
    if ("problem" in names) return invalid(names.problem);
    const { subject, actor, jti } = names;
    const granted = scopesOf(claims);
    const missing = required.filter((s) => !granted.includes(s));
    if (missing.length > 0)
      return refuse(
        403,
        `the token lacks the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
        "insufficient_scope",
      );
    const preset = presets.find((p) => granted.includes(p.scope))?.preset ?? options.defaultPreset;
    const taskAuthorityRef = jti !== undefined ? `jti:${jti}` : `sha256:${digest.slice(0, 32)}`;
    return { ok: true, binding: { subject, actor, taskAuthorityRef, preset }, scopes: granted };
  }

  return { authenticate, metadata, metadataUrl };
}

/** The verdict on a token not checked because {@link PENDING_MAX} are under way: each ends within a fetch's timeout. */
const BUSY: Promise<Verdict> = Promise.resolve({
  busy: true,
  retryAfterSeconds: Math.ceil(FETCH_TIMEOUT_MS / 1_000),
});

/** A URL as an identifier: http(s), no fragment; refused otherwise, naming `what`. */
function canonical(value: string, what: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new TypeError(`${what} ${JSON.stringify(value)} is not a URL`);
  }
  if (!/^https?:$/.test(u.protocol) || u.hash !== "" || u.search !== "")
    throw new TypeError(`${what} ${value} must be an http(s) URL without query or fragment`);
  return value;
}
