import { expect, it } from "vitest";

// The built entry is the public surface; a new name here is a new public API.
it("exports exactly these names", async () => {
  const mod = await import("../dist/index.js");
  expect(Object.keys(mod).sort()).toMatchInlineSnapshot(`
    [
      "JSONRPC_ERROR_CODES",
      "LEGACY_PROTOCOL_VERSIONS",
      "MCP_ERROR_CODES",
      "MCP_IO_DEADLINE_MS",
      "MCP_LIMITS",
      "MCP_LIST_DEADLINE_MS",
      "MCP_MESSAGE_MAX_BYTES",
      "MCP_MESSAGE_MAX_DEPTH",
      "MCP_MESSAGE_MAX_NODES",
      "MCP_PROTOCOL_VERSIONS",
      "MCP_QUEUE_MAX_BYTES",
      "MCP_QUEUE_MAX_MESSAGES",
      "MCP_READY_PROCESSES",
      "MCP_RESPONSE_MAX_BYTES",
      "MODERN_PROTOCOL_VERSION",
      "McpError",
      "serveHttp",
      "serveStdio",
    ]
  `);
});

// Types are public API too: the names the built declarations export as types only.
it("exports exactly these type names", async () => {
  const { readFileSync } = await import("node:fs");
  const dts = readFileSync(new URL("../dist/index.d.ts", import.meta.url), "utf8");
  const names = [...dts.matchAll(/^export type \{([^}]*)\}/gm)].flatMap((m) =>
    m[1]!
      .split(",")
      .map((n) => n.trim())
      .filter((n) => n !== ""),
  );
  expect(names.sort()).toMatchInlineSnapshot(`
    [
      "HttpAccessLog",
      "HttpAuthOutcome",
      "HttpAuthenticator",
      "McpCloseReason",
      "McpEndpointSettings",
      "McpErrorCode",
      "McpHostOptions",
      "McpHttpHost",
      "McpLimits",
      "McpLogger",
      "McpStdioHost",
      "ServeHttpOptions",
      "ServeStdioOptions",
    ]
  `);
});

// Stdout belongs to the protocol: no source file, in any room, may log to the console.
it("has no console calls in src", async () => {
  const { readdirSync, readFileSync } = await import("node:fs");
  const dir = new URL("../src/", import.meta.url);
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".ts"),
  );
  expect(files.length).toBeGreaterThan(20);
  const offenders = files.flatMap((f) =>
    readFileSync(new URL(f, dir), "utf8")
      .split("\n")
      .filter((line) => /\bconsole\.\w+\(/.test(line) && !/^\s*(\*|\/\/)/.test(line))
      .map((line) => `${f}: ${line.trim()}`),
  );
  expect(offenders).toEqual([]);
});
