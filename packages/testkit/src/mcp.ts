// What requests of the MCP protocol eras carry, for the suites that speak
// them to a server.

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

/**
 * The params of an `initialize` of the 2025-11-25 protocol era, the one a
 * session of the earlier eras opens with: no capabilities, client `t` 1.
 *
 * @example
 * session.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: LEGACY_INITIALIZE });
 */
export const LEGACY_INITIALIZE = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "t", version: "1" },
};

/**
 * The `_meta` of a 2026-07-28 request whose client declares the tasks
 * extension (`io.modelcontextprotocol/tasks`): a server may answer a
 * `tools/call` of it with a task.
 *
 * @example
 * const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {}, _meta: TASKS_META } };
 */
export const TASKS_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};
