// An MCP client session over a server's stdio, in the 2025-11-25 session era
// that rukh and the SDK servers both accept.
import { lineRpc } from "@rukh/testkit";
import { cleanEnv } from "./_fixtures.mjs";

/** Spawns `file args` and completes the MCP handshake; resolves once `initialize` is answered. */
export async function mcpSession(file, args, env = cleanEnv()) {
  const session = lineRpc(file, args, env);
  await session.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "rukh-bench", version: "1.0.0" },
  });
  session.notify("notifications/initialized");
  return session;
}

/** Every page of `tools/list`; returns how many tools there were. */
export async function listAll(session) {
  let count = 0;
  let cursor;
  do {
    const page = await session.request("tools/list", cursor === undefined ? {} : { cursor });
    count += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return count;
}

/** Every tool of every page of `tools/list`, as listed. */
export async function allTools(session) {
  const tools = [];
  let cursor;
  do {
    const page = await session.request("tools/list", cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
