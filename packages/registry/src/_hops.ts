// One registry GET and the redirects it is sent on, each hop made by npm's
// fetcher (make-fetch-happen) with npm's credential rules (npm-registry-fetch's
// getAuth), but followed here: credentials go only to a hop whose scheme,
// host and port are the registry's. make-fetch-happen, left to follow, keeps
// the token on a redirect to another port or scheme of the same host.
import makeFetch from "make-fetch-happen";
import regFetch from "npm-registry-fetch";
import { RegistryError } from "./_errors.js";
import { FETCH_MAX_REDIRECTS } from "./_limits.js";
import type { NpmOptions } from "./_npm-config.js";

/** The response of the last hop: its status, headers and body. */
export interface HopResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: AsyncIterable<Buffer>;
}

/** What one GET asks, and of which registry. */
export interface HopRequest {
  readonly url: string;
  /** The package it is for: picks the registry's credentials as npm does. */
  readonly name: string;
  /** The registry npm's configuration names for the package, as configured (credentials and all). */
  readonly registry: string;
  /** The registry as it may be shown, for messages. */
  readonly shown: string;
  /** What is fetched, for messages. */
  readonly what: string;
  readonly accept?: string;
  readonly integrity?: string;
  readonly signal: AbortSignal;
  /** npm's socket and header timeout for each hop (the idle timeout). */
  readonly timeoutMs: number;
  /** Told why npm's fetcher tries again (an error, or a response it retries). */
  readonly onRetry?: (why: unknown) => void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function origin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** `url` without user info: a hop away from the registry carries no credentials at all. */
function bare(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  return u.href;
}

/**
 * npm's options for a hop to `url`: the configured ones where scheme, host
 * and port are the registry's; elsewhere none of its credentials (token,
 * basic auth, client certificate).
 */
export function hopOptions(
  npm: NpmOptions,
  url: string,
  get: Pick<HopRequest, "name" | "registry">,
): Record<string, unknown> {
  const own = origin(url) !== undefined && origin(url) === origin(get.registry);
  // forceAuth {} makes npm's getAuth read credentials from it alone: none.
  return own
    ? { ...npm.flat, spec: get.name }
    : { ...npm.flat, spec: get.name, forceAuth: {}, cert: undefined, key: undefined };
}

async function hop(npm: NpmOptions, url: string, get: HopRequest): Promise<HopResponse> {
  const opts = hopOptions(npm, url, get);
  const auth = regFetch.getAuth(url, opts);
  const f = npm.flat;
  const headers: Record<string, string> = {
    ...(typeof f.userAgent === "string" && { "user-agent": f.userAgent }),
    ...(get.accept !== undefined && { accept: get.accept }),
    ...(auth.token
      ? { authorization: `Bearer ${auth.token}` }
      : auth.auth
        ? { authorization: `Basic ${auth.auth}` }
        : {}),
  };
  return makeFetch(url, {
    method: "GET",
    headers,
    redirect: "manual",
    signal: get.signal,
    timeout: get.timeoutMs,
    ...(get.integrity !== undefined && { integrity: get.integrity }),
    ca: f.ca,
    cert: auth.cert || opts.cert,
    key: auth.key || opts.key,
    strictSSL: f.strictSSL,
    localAddress: f.localAddress,
    maxSockets: f.maxSockets,
    proxy: f.httpsProxy || f.proxy,
    noProxy: f.noProxy,
    // npm's retries (fetch-retries and its back-off); a back-off never keeps a finished process alive.
    retry: { ...(f.retry as object | undefined), unref: true },
    ...(get.onRetry !== undefined && { onRetry: get.onRetry }),
  });
}

/**
 * The response to `get`, following at most {@link FETCH_MAX_REDIRECTS}
 * redirects; each hop away from the registry's scheme, host and port is made
 * without its token, basic auth, client certificate or address user info.
 */
export async function fetchHops(npm: NpmOptions, get: HopRequest): Promise<HopResponse> {
  let url = origin(get.url) === origin(get.registry) ? get.url : bare(get.url);
  for (let redirects = 0; ; redirects++) {
    const res = await hop(npm, url, get);
    if (!REDIRECTS.has(res.status)) return res;
    const location = res.headers.get("location");
    if (location === null || redirects === FETCH_MAX_REDIRECTS)
      throw new RegistryError(
        "registry_invalid",
        location === null
          ? `registry ${get.shown} answered HTTP ${res.status} without a location for ${get.what}`
          : `registry ${get.shown} redirected ${get.what} more than ${FETCH_MAX_REDIRECTS} times`,
      );
    const next = new URL(location, url).href;
    url = origin(next) === origin(get.registry) ? next : bare(next);
  }
}
