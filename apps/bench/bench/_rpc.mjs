// A minimal pipelined JSON-RPC client over a server's stdio, speaking the
// 2025-11-25 session era both rukh and the SDK servers accept.
import { spawn } from "node:child_process";
import { cleanEnv } from "./_fixtures.mjs";

/** Spawns `file args` and completes the MCP handshake; resolves once `initialize` is answered. */
export async function mcpSession(file, args, env = cleanEnv()) {
  const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  let buf = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  let next = 0;
  const send = (m) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  const session = {
    pid: child.pid,
    request(method, params = {}) {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, (m) =>
          m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result),
        );
        send({ id, method, params });
      });
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
    },
  };
  await session.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "rukh-bench", version: "1.0.0" },
  });
  send({ method: "notifications/initialized" });
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
