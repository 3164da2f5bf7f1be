// What the issuer sends is read with a limit: its metadata and its key set
// are small documents, and a server that streams more is cut off, not read.

/** Largest metadata document or key set read from an issuer, in bytes. */
export const ISSUER_DOCUMENT_MAX_BYTES = 262_144;

/**
 * `fetch` that follows no redirect and whose answer's body is read to at
 * most `max` bytes; a longer one fails, naming the URL and the limit.
 *
 * @example
 * const res = await boundedFetch("https://login.acme.test/jwks", {}, 262_144);
 */
export async function boundedFetch(
  input: string | URL | Request,
  init: RequestInit | undefined,
  max: number,
): Promise<Response> {
  const res = await fetch(input, { ...init, redirect: "error" });
  const where = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    throw new Error(`${where} answered ${declared} bytes; at most ${max} are read`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (;;) {
    const next = await reader?.read();
    if (next === undefined || next.done) break;
    size += next.value.byteLength;
    if (size > max) {
      await reader!.cancel();
      throw new Error(`${where} answered more than ${max} bytes; at most ${max} are read`);
    }
    chunks.push(next.value);
  }
  return new Response(Buffer.concat(chunks), { status: res.status, headers: res.headers });
}
