// A resource server for one endpoint: every request's bearer token is a JWT
// access token (RFC 9068) signed by the configured issuer with a key from
// its published set, issued for this resource (RFC 8707), in its validity
// window, with the scopes the endpoint requires. What it proves becomes the
// call's binding; the token itself goes no further than this file.

import { createHash } from "node:crypto";
import {
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { type BearerError, bearerChallenge } from "./_challenge.js";
import { boundedFetch, ISSUER_DOCUMENT_MAX_BYTES } from "./_fetch.js";

/** Longest `Authorization` header read, in characters. */
const AUTHORIZATION_MAX = 8_192;
/** Longest a subject, actor or preset taken from a token may be (the core's bound). */
const CLAIM_MAX = 256;
/** How long a metadata or key-set fetch may take. */
const FETCH_TIMEOUT_MS = 5_000;
/** How long a failed discovery of the issuer's keys is not tried again. */
const DISCOVERY_RETRY_MS = 5_000;
/** Tokens whose verification is remembered (a client sends the same one with every request). */
const VERIFIED_MAX = 512;

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
    };

/**
 * An endpoint's resource server: {@link ResourceServer.authenticate} for
 * each request and the Protected Resource Metadata to publish.
 *
 * @example
 * const rs = createResourceServer(options);
 * const who = await rs.authenticate(request.headers.authorization);
 */
export interface ResourceServer {
  authenticate(authorization: string | undefined): Promise<Authentication>;
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

  let keys: Promise<JWTVerifyGetKey> | undefined;
  /** When discovery last failed: it is not tried again for {@link DISCOVERY_RETRY_MS}. */
  let failedAt = Number.NEGATIVE_INFINITY;
  /** Verified tokens' claims by the token's SHA-256, oldest first. */
  const verified = new Map<string, JWTPayload>();
  const keySet = (): Promise<JWTVerifyGetKey> => {
    if (keys === undefined && Date.now() - failedAt < DISCOVERY_RETRY_MS)
      return Promise.reject(new Error("the issuer's metadata could not be fetched a moment ago"));
    keys ??= jwksUrl(issuer, options.jwksUri).then((u) =>
      createRemoteJWKSet(new URL(u), {
        cooldownDuration: options.jwksCooldownMs ?? 30_000,
        timeoutDuration: FETCH_TIMEOUT_MS,
        [customFetch]: (input: string | URL | Request, init?: RequestInit) =>
          boundedFetch(input, init, ISSUER_DOCUMENT_MAX_BYTES),
      }),
    );
    // A failed discovery is tried again, a little later.
    keys.catch(() => {
      keys = undefined;
      failedAt = Date.now();
    });
    return keys;
  };

  const refuse = (
    status: 400 | 401 | 403 | 503,
    message: string,
    error?: BearerError,
    scope: readonly string[] = required,
  ): Authentication => ({
    ok: false,
    status,
    message,
    challenge: bearerChallenge({
      metadataUrl,
      scope,
      ...(error !== undefined && { error, description: message }),
    }),
  });

  async function authenticate(authorization: string | undefined): Promise<Authentication> {
    if (authorization === undefined || authorization === "")
      return refuse(401, "Unauthorized: this endpoint needs a bearer token");
    if (authorization.length > AUTHORIZATION_MAX)
      return refuse(400, "the Authorization header is too long", "invalid_request");
    const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization);
    if (m === null)
      return refuse(400, "the Authorization header must be one Bearer token", "invalid_request");
    const token = m[1]!;
    // Only what could be a signed JWT costs a key fetch.
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token))
      return refuse(401, "the bearer token is not valid here: it is malformed", "invalid_token");
    let getKey: JWTVerifyGetKey;
    try {
      getKey = await keySet();
    } catch {
      // What failed names internal addresses: it is not for the client.
      return refuse(503, "the issuer's keys cannot be fetched now; try again later");
    }
    // A token verified before is verified still, until it expires: its bytes are the same.
    const digest = createHash("sha256").update(token).digest("hex");
    let payload = verified.get(digest);
    const now = Date.now() / 1000;
    if (payload !== undefined && (payload.exp as number) + tolerance <= now) {
      verified.delete(digest);
      payload = undefined;
    }
    if (payload === undefined) {
      try {
        ({ payload } = await jwtVerify(token, getKey, {
          issuer,
          audience: resource,
          algorithms,
          clockTolerance: tolerance,
          typ: "at+jwt",
          requiredClaims: ["exp", "sub"],
        }));
      } catch (e) {
        // A key set that cannot be fetched or read is the issuer's trouble, not the token's.
        if (
          e instanceof errors.JWKSTimeout ||
          e instanceof errors.JWKSInvalid ||
          !(e instanceof errors.JOSEError) ||
          e.code === "ERR_JOSE_GENERIC"
        )
          return refuse(503, "the issuer's keys cannot be fetched now; try again later");
        return refuse(401, `the bearer token is not valid here: ${reason(e)}`, "invalid_token");
      }
      if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
      verified.set(digest, payload);
    }
    const granted = scopesOf(payload);
    const missing = required.filter((s) => !granted.includes(s));
    if (missing.length > 0)
      return refuse(
        403,
        `the token lacks the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
        "insufficient_scope",
      );
    const subject = claim(payload.sub);
    const actor = claim(payload.client_id) ?? claim(payload.azp) ?? subject;
    if (subject === undefined || actor === undefined)
      return refuse(
        401,
        "the token's sub (and client_id) must be 1–256 characters",
        "invalid_token",
      );
    const preset = presets.find((p) => granted.includes(p.scope))?.preset ?? options.defaultPreset;
    const jti = claim(payload.jti);
    const taskAuthorityRef = jti !== undefined ? `jti:${jti}` : `sha256:${digest.slice(0, 32)}`;
    return { ok: true, binding: { subject, actor, taskAuthorityRef, preset }, scopes: granted };
  }

  return { authenticate, metadata, metadataUrl };
}

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

/** The `jwks_uri` the issuer publishes, from its own metadata (which must name the same issuer). */
async function jwksUrl(issuer: string, configured: string | undefined): Promise<string> {
  if (configured !== undefined) return configured;
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
    const text = await res.text();
    const meta = JSON.parse(text) as { issuer?: unknown; jwks_uri?: unknown };
    if (meta.issuer !== issuer)
      throw new Error(`${at} names issuer ${JSON.stringify(meta.issuer)}, not ${issuer}`);
    if (typeof meta.jwks_uri !== "string") throw new Error(`${at} has no jwks_uri`);
    const keysAt = new URL(meta.jwks_uri);
    const local = ["127.0.0.1", "localhost", "[::1]"].includes(keysAt.hostname);
    if (keysAt.protocol !== "https:" && !(keysAt.protocol === "http:" && local))
      throw new Error(`${at} names a jwks_uri that is not https: ${meta.jwks_uri}`);
    return meta.jwks_uri;
  }
  throw new Error(`no authorization server metadata at ${candidates.join(" or ")}`);
}

function scopesOf(p: JWTPayload): string[] {
  if (typeof p.scope === "string") return p.scope.split(" ").filter((s) => s !== "");
  if (Array.isArray(p.scp)) return p.scp.filter((s): s is string => typeof s === "string");
  return [];
}

function claim(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 && v.length <= CLAIM_MAX ? v : undefined;
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
