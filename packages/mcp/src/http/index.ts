// The HTTP host: MCP over Streamable HTTP, every POST one request,
// authenticated on its own and served under the binding its credential
// proves. Steps: serveHttp (its settings, the core, a bounded server listening) → gate
// (a header sent twice, Host and Origin, the target, CORS, the
// authenticator, media types, the body, routing headers) → serveRequest
// (the request's handlers, the protocol's one answer) → a reply (JSON, or an
// event stream) → its access line, when the host keeps an access log.
// Imports tools/, protocol/ and hosting/.

export type { HttpAccessLog } from "./_access-log.js";
export type { HttpAuthenticator, HttpAuthOutcome } from "./_authenticator.js";
export type { McpHttpHost, ServeHttpOptions } from "./_serve-http.js";
export { serveHttp } from "./_serve-http.js";
