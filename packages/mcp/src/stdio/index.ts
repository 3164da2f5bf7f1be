// The stdio host: one MCP client on a process's stdin and stdout. Steps:
// serveStdio (its settings, the launch binding, the core) → divertStdout (stdout carries
// protocol messages only) → StdioConnection (each line decoded and answered
// through the protocol; the one orderly end of it all) over StdioChannel
// (newline framing, hard limits, backpressure). Imports tools/, protocol/
// and hosting/.

export type { McpCloseReason } from "./_connection.js";
export type { McpStdioHost, ServeStdioOptions } from "./_serve-stdio.js";
export { serveStdio } from "./_serve-stdio.js";
