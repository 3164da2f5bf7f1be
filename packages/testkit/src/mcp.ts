// What every request of the 2026-07-28 MCP protocol era carries, for the
// suites that speak it to a server.

/**
 * The `_meta` of a 2026-07-28 request: the protocol version and the client's
 * capabilities (none), which a stateless request repeats every time.
 *
 * @example
 * const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
 */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
