// What of a registry may be shown: its address without the user info an
// owner may have put in it, and message text with every credential removed
// — npm's own redaction (@npmcli/redact), user info of any address, and
// each credential npm's configuration holds. Applied before anything is
// printed, recorded in a revision, journaled or logged.
import { redact } from "@npmcli/redact/server";

/** Credentials shorter than this are left to the address rules (replacing them would garble text). */
const SHORTEST_SCRUBBED = 6;

/** An address's user info (`scheme://user:password@`), wherever it appears in text. */
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

/**
 * A registry's address as it may be shown and recorded: scheme, host, port
 * and path, without user info, query or fragment. Text that is no address
 * is returned redacted as message text is.
 *
 * @example
 * registryAddress("https://jane:s3cret@registry.example/npm/"); // "https://registry.example/npm/"
 */
export function registryAddress(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactedText(url);
  }
  parsed.username = "";
  parsed.password = "";
  parsed.search = "";
  parsed.hash = "";
  return parsed.href;
}

/**
 * `text` without credentials: npm's redaction (passwords in addresses,
 * npm tokens, authorization headers, JSON web tokens), the user info of
 * every address, and each of `secrets` replaced by `***`.
 *
 * @example
 * redactedText("GET http://jane:s3cret@registry.example/x failed"); // "GET http://registry.example/x failed"
 */
export function redactedText(text: string, secrets: readonly string[] = []): string {
  let out = String(redact(text)).replace(USER_INFO, "$1");
  for (const s of secrets) if (s.length >= SHORTEST_SCRUBBED) out = out.split(s).join("***");
  return out;
}

/** Text from a registry quoted in a message: one line, at most 120 characters, redacted. */
export function quoted(text: unknown): string {
  const s = typeof text === "string" ? text : (JSON.stringify(text) ?? String(text));
  const cut = s.length > 120 ? `${s.slice(0, 120)}…` : s;
  return JSON.stringify(redactedText(cut));
}

/** Keys of npm's configuration whose values are credentials (`//host/:_authToken` and the like). */
const CREDENTIAL_KEY = /(^|:)(_authToken|_auth|_password|token)$/;

/**
 * Every credential npm's configuration `flat` holds: tokens, `_auth` and
 * `_password` (as written and decoded), and the user info of each registry
 * address.
 */
export function configuredSecrets(flat: Readonly<Record<string, unknown>>): string[] {
  const found = new Set<string>();
  for (const [key, value] of Object.entries(flat)) {
    if (typeof value !== "string" || value === "") continue;
    if (CREDENTIAL_KEY.test(key)) {
      found.add(value);
      if (/(_auth|_password)$/.test(key)) {
        const decoded = Buffer.from(value, "base64").toString("utf8");
        found.add(decoded);
        for (const part of decoded.split(":")) found.add(part);
      }
    } else if (key === "registry" || key.endsWith(":registry")) {
      try {
        const { username, password } = new URL(value);
        for (const part of [username, password])
          if (part !== "") found.add(part).add(decodeURIComponent(part));
      } catch {}
    }
  }
  return [...found].sort((a, b) => b.length - a.length);
}
