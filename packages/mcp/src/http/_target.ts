// The request target a gate routes by. Origin-form (`/mcp?x`) is the path
// as sent, cut at its query. Absolute-form (`http://host/mcp`, which
// HTTP/1.1 servers must accept and which names the host in place of `Host`)
// follows the same rule: its path is taken as sent, never normalised (no
// dot segment is resolved, nothing is decoded), and its host must be one
// the endpoint answers to, as `Host` must. User information (`user:pass@`)
// has no place in an http(s) target (RFC 9110 §4.2.4): it is refused
// without being repeated, since what it holds may be a password.

import { JSONRPC_ERROR_CODES } from "../protocol/index.js";
import type { HttpRefusal } from "./_checks.js";

/** `scheme://authority` and the rest of an absolute-form target. */
const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

/**
 * The path of request target `target`, or the refusal of a target whose
 * host is not in `allowedHosts` (403), whose scheme is not http(s) or that
 * carries user information (400).
 * A path that is not the endpoint's is for the caller to refuse (404).
 *
 * @example
 * targetPath("http://127.0.0.1:8080/x/../mcp", hosts); // "/x/../mcp": no resource's path
 */
export function targetPath(
  target: string | undefined,
  allowedHosts: ReadonlySet<string>,
): string | HttpRefusal {
  if (target === undefined) return "/";
  const absolute = ABSOLUTE.exec(target);
  if (absolute === null) return beforeQuery(target);
  const [, scheme, authority, rest] = absolute;
  if (!/^https?$/i.test(scheme!))
    return {
      status: 400,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: `Bad request: the request target must be a path or an http(s) URL, not a ${scheme} one`,
    };
  if (authority!.includes("@"))
    return {
      status: 400,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message:
        "Bad request: the request target carries user information (user@host), which an http(s) URL must not",
    };
  if (!allowedHosts.has(authority!.toLowerCase()))
    return {
      status: 403,
      code: JSONRPC_ERROR_CODES.invalidRequest,
      message: `Forbidden: this endpoint does not answer to host ${JSON.stringify(authority)}`,
    };
  // An absolute URL with no path asks for the root.
  const path = beforeQuery(rest!);
  return path === "" ? "/" : path;
}

/** `target` cut at its query (or a fragment, which no client should send). */
function beforeQuery(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}
