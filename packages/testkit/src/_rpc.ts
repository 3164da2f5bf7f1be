// A minimal pipelined JSON-RPC client over a child's stdio (one message a
// line), for benches and tests that talk to an MCP server as a client would.

import { type ChildProcess, spawn } from "node:child_process";

/** A line-delimited JSON-RPC connection to a spawned server. */
export interface LineRpc {
  readonly pid: number | undefined;
  /** Sends a request and resolves with its result (rejects with its error's message). */
  request(method: string, params?: object): Promise<unknown>;
  /** Sends a notification. */
  notify(method: string, params?: object): void;
  /** Ends the server's input and waits for it to exit. */
  close(): Promise<void>;
}

/**
 * Spawns `file args` with `env` (its whole environment) and speaks JSON-RPC
 * over its stdin and stdout; `params` of every request get `extra` merged in
 * (an era's `_meta`, say).
 *
 * @example
 * const rpc = lineRpc(process.execPath, [server], { PATH: "/usr/bin" });
 * await rpc.request("ping");
 */
export function lineRpc(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  extra: object = {},
): LineRpc {
  const child: ChildProcess = spawn(file, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map<number, (m: { result?: unknown; error?: { message: string } }) => void>();
  let buf = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  const send = (m: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  let next = 0;
  return {
    pid: child.pid,
    request(method, params = {}) {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, (m) =>
          m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result),
        );
        send({ id, method, params: { ...params, ...extra } });
      });
    },
    notify(method, params = {}) {
      send({ method, params });
    },
    async close() {
      child.stdin!.end();
      if (child.exitCode === null && child.signalCode === null)
        await new Promise((r) => child.once("exit", r));
    },
  };
}
