// One bounded GET of a registry: through npm's fetcher, hop by hop (see
// `_hops.ts`), within a total deadline and an idle timeout, at most
// `maxBytes` of body, and every way it can fail said in one line that names
// the registry as it may be shown — never a credential.
import npa from "npm-package-arg";
import regFetch from "npm-registry-fetch";
import { Deadline, type FetchDeadlines, fetchDeadlines, seconds } from "./_deadline.js";
import { RegistryError } from "./_errors.js";
import { fetchHops } from "./_hops.js";
import { FETCH_IDLE_MAX_MS, FETCH_TOTAL_MAX_MS } from "./_limits.js";
import type { NpmOptions } from "./_npm-config.js";
import { configuredSecrets, redactedText, registryAddress } from "./_redact.js";

/** How a GET is made and bounded. */
export interface BoundedGet {
  readonly url: string;
  /** The package it is for: picks the registry and its credentials as npm does. */
  readonly name: string;
  /** What is fetched, for messages: `the package document of @jane/hello`. */
  readonly what: string;
  readonly maxBytes: number;
  /** How a breach of `maxBytes` is named. */
  readonly tooLarge: string;
  readonly accept?: string;
  /** SRI the body must match (checked by npm's fetcher while it streams). */
  readonly integrity?: string;
  /** Called as bytes arrive, with the total when the registry says it. */
  readonly onProgress?: (received: number, total: number | undefined) => void;
  /** Its limits, when not those npm's configuration sets ({@link fetchDeadlines}). */
  readonly deadlines?: FetchDeadlines;
}

/** The registry npm's configuration names for a package, as configured (credentials and all), ending in `/`. */
export function configuredRegistry(name: string, npm: NpmOptions): string {
  const url = regFetch.pickRegistry(npa(name), npm.flat);
  return url.endsWith("/") ? url : `${url}/`;
}

/** The body of a GET, at most `maxBytes` of it, or the {@link RegistryError} saying why not. */
export async function boundedGet(npm: NpmOptions, get: BoundedGet): Promise<Buffer> {
  const registry = configuredRegistry(get.name, npm);
  const shown = registryAddress(registry);
  const deadline = new Deadline(get.deadlines ?? fetchDeadlines(npm));
  // What made npm's fetcher try again: the reason to give if time runs out while it retries.
  let retried: unknown;
  try {
    const res = await deadline.race(
      fetchHops(npm, {
        ...get,
        registry,
        shown,
        signal: deadline.signal,
        timeoutMs: deadline.limits.idleMs,
        onRetry: (why) => {
          retried = why;
        },
      }),
    );
    deadline.touch();
    if (res.status < 200 || res.status > 299)
      throw Object.assign(new Error(`HTTP ${res.status}`), { statusCode: res.status });
    const length = Number(res.headers.get("content-length") ?? Number.NaN);
    const total = Number.isSafeInteger(length) ? length : undefined;
    if (total !== undefined && total > get.maxBytes)
      throw new RegistryError(
        "package_too_large",
        `${get.tooLarge} (the registry announces ${total})`,
      );
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of res.body) {
      deadline.touch();
      received += chunk.length;
      if (received > get.maxBytes) throw new RegistryError("package_too_large", get.tooLarge);
      chunks.push(chunk);
      get.onProgress?.(received, total);
    }
    return Buffer.concat(chunks);
  } catch (e) {
    const f = failure(e, { registry: shown, what: get.what, name: get.name }, deadline, retried);
    const secrets = configuredSecrets(npm.flat);
    throw new RegistryError(f.code, redactedText(f.message, secrets), {
      cause: safeCause(e, secrets),
    });
  } finally {
    deadline.end();
  }
}

/** The cause of a failure without a credential in its message (npm's errors quote addresses). */
function safeCause(e: unknown, secrets: readonly string[]): Error {
  const err = e as { message?: unknown; code?: unknown; statusCode?: unknown } | undefined;
  return Object.assign(new Error(redactedText(String(err?.message ?? e), secrets)), {
    ...(err?.code !== undefined && { code: err.code }),
    ...(err?.statusCode !== undefined && { statusCode: err.statusCode }),
  });
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ERR_SOCKET_TIMEOUT",
  "FETCH_ERROR",
  "UND_ERR_CONNECT_TIMEOUT",
  "ECONNECTIONTIMEOUT",
]);

/** npm's own timers of a hop: its socket idle timeout is the idle timeout. */
const IDLE = new Set(["EIDLETIMEOUT", "ERESPONSETIMEOUT", "ETRANSFERTIMEOUT"]);

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 300);
}

/** Why a request ended at one of its limits, or `undefined` when it did not. */
function expiry(
  e: unknown,
  get: Pick<BoundedGet, "what">,
  deadline?: Deadline,
): string | undefined {
  const err = e as { code?: string; type?: string };
  const why =
    deadline?.expired ??
    (IDLE.has(err.code ?? "") || err.type === "request-timeout" ? "idle" : undefined);
  if (why === undefined || deadline === undefined) return undefined;
  return why === "total"
    ? `did not send all of ${get.what} within ${seconds(deadline.limits.totalMs)} (the total deadline: npm's fetch-timeout, at most ${seconds(FETCH_TOTAL_MAX_MS)})`
    : `sent nothing of ${get.what} for ${seconds(deadline.limits.idleMs)} (the idle timeout: npm's fetch-timeout, at most ${seconds(FETCH_IDLE_MAX_MS)})`;
}

/**
 * A fetch failure as the one-line error that names the registry (`registry`
 * is the address as it may be shown); a request that ran out of time says
 * which limit ended it and how long it waited.
 */
function failure(
  e: unknown,
  get: { readonly registry: string } & Pick<BoundedGet, "what" | "name">,
  deadline?: Deadline,
  retried?: unknown,
): RegistryError {
  if (e instanceof RegistryError) return e;
  const { registry, what } = get;
  // Time ran out while npm's fetcher retried an error: that error is the reason.
  const lastError = retried instanceof Error ? retried : undefined;
  if (deadline?.expired !== undefined && lastError !== undefined) {
    const f = failure(lastError, get);
    return new RegistryError(
      f.code,
      `${f.message}; gave up retrying after ${seconds(deadline.expired === "total" ? deadline.limits.totalMs : deadline.limits.idleMs)}`,
    );
  }
  const late = expiry(e, get, deadline);
  if (late !== undefined)
    return new RegistryError("registry_unreachable", `registry ${registry} ${late}`);
  const err = e as { statusCode?: number; code?: string; message?: string };
  const status = err.statusCode;
  if (status === 401 || status === 403 || err.code === "EOTP" || err.code === "EAUTHIP")
    return new RegistryError(
      "registry_auth",
      `registry ${registry} asks for a token to give ${what} (HTTP ${status ?? err.code}); add one for it to your .npmrc (npm login --registry ${registry})`,
    );
  if (status === 404)
    return new RegistryError("not_found", `registry ${registry} has no ${get.name}`);
  if (status !== undefined)
    return new RegistryError(
      status >= 500 ? "registry_unreachable" : "registry_invalid",
      `registry ${registry} answered HTTP ${status} for ${what}`,
    );
  if (err.code === "EINTEGRITY")
    return new RegistryError(
      "integrity_mismatch",
      `${what} from registry ${registry} does not match the integrity the registry published for it`,
    );
  if (err.code !== undefined && UNREACHABLE.has(err.code))
    return new RegistryError(
      "registry_unreachable",
      `cannot reach registry ${registry} for ${what} (${err.code})`,
    );
  return new RegistryError(
    "registry_unreachable",
    `cannot fetch ${what} from registry ${registry}: ${oneLine(err.message ?? String(e))}`,
  );
}
