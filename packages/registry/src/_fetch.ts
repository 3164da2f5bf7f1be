// One bounded GET through npm's fetcher, and every way it can fail said in
// one line that names the registry.
import regFetch from "npm-registry-fetch";
import { RegistryError } from "./_errors.js";
import type { NpmOptions } from "./_npm-config.js";

/** How a GET is made and bounded. */
export interface BoundedGet {
  readonly url: string;
  /** The package it is for: picks the registry's token as npm does. */
  readonly name: string;
  /** The registry it is asked of, for messages. */
  readonly registry: string;
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
}

/** The body of a GET, at most `maxBytes` of it, or the {@link RegistryError} saying why not. */
export async function boundedGet(npm: NpmOptions, get: BoundedGet): Promise<Buffer> {
  const abort = new AbortController();
  try {
    const res = await regFetch(get.url, {
      ...npm.flat,
      spec: get.name,
      signal: abort.signal,
      ...(get.accept !== undefined && { headers: { accept: get.accept } }),
      ...(get.integrity !== undefined && { integrity: get.integrity }),
    });
    const length = Number(res.headers.get("content-length") ?? Number.NaN);
    const total = Number.isSafeInteger(length) ? length : undefined;
    if (total !== undefined && total > get.maxBytes) {
      abort.abort();
      throw new RegistryError(
        "package_too_large",
        `${get.tooLarge} (the registry announces ${total})`,
      );
    }
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of res.body) {
      received += chunk.length;
      if (received > get.maxBytes) {
        abort.abort();
        throw new RegistryError("package_too_large", get.tooLarge);
      }
      chunks.push(chunk);
      get.onProgress?.(received, total);
    }
    return Buffer.concat(chunks);
  } catch (e) {
    throw failure(e, get);
  }
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
]);

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 300);
}

/** A fetch failure as the one-line error that names the registry. */
export function failure(
  e: unknown,
  get: Pick<BoundedGet, "registry" | "what" | "name">,
): RegistryError {
  if (e instanceof RegistryError) return e;
  const err = e as { statusCode?: number; code?: string; message?: string };
  const { registry, what } = get;
  const status = err.statusCode;
  if (status === 401 || status === 403 || err.code === "EOTP" || err.code === "EAUTHIP")
    return new RegistryError(
      "registry_auth",
      `registry ${registry} asks for a token to give ${what} (HTTP ${status ?? err.code}); add one for it to your .npmrc (npm login --registry ${registry})`,
      { cause: e },
    );
  if (status === 404)
    return new RegistryError("not_found", `registry ${registry} has no ${get.name}`, { cause: e });
  if (status !== undefined)
    return new RegistryError(
      status >= 500 ? "registry_unreachable" : "registry_invalid",
      `registry ${registry} answered HTTP ${status} for ${what}`,
      { cause: e },
    );
  if (err.code === "EINTEGRITY")
    return new RegistryError(
      "integrity_mismatch",
      `${what} from registry ${registry} does not match the integrity the registry published for it`,
      { cause: e },
    );
  if (err.code !== undefined && UNREACHABLE.has(err.code))
    return new RegistryError(
      "registry_unreachable",
      `cannot reach registry ${registry} for ${what} (${err.code})`,
      { cause: e },
    );
  return new RegistryError(
    "registry_unreachable",
    `cannot fetch ${what} from registry ${registry}: ${oneLine(err.message ?? String(e))}`,
    { cause: e },
  );
}
