// What lets a web page at an allowed origin use the endpoint (CORS): a page's
// POST carries an Authorization header and MCP's own headers, so its browser
// first asks with an OPTIONS preflight, and reads an answer only if the
// answer names the page's origin. Origins that are not allowed never get
// here: the source check has answered them 403.

import type { ServerResponse } from "node:http";
import { headerValue } from "./_header-value.js";

/** The request headers a 2026-07-28 client sends beyond the CORS-safelisted ones. */
const REQUEST_HEADERS =
  "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name";

/** How long a browser may keep a preflight's answer (10 minutes). */
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * Marks every answer as one that differs by `Origin`, and, for a request an
 * allowed page sent, lets that page read it, including the challenge of a
 * `401` (so that it can find the metadata and its issuer).
 */
export function allowOrigin(res: ServerResponse, origin: string | undefined): void {
  res.setHeader("vary", "Origin");
  if (origin === undefined) return;
  res.setHeader("access-control-allow-origin", headerValue(origin));
  res.setHeader("access-control-expose-headers", "WWW-Authenticate");
}

/** Answers an allowed page's preflight: it may POST with the headers MCP uses. */
export function answerPreflight(res: ServerResponse): undefined {
  res.writeHead(204, {
    "access-control-allow-methods": "POST",
    "access-control-allow-headers": REQUEST_HEADERS,
    "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
  });
  res.end();
  return undefined;
}
