// What the author-toolkit suites share: a work directory with the built CLI
// pointed at a state directory inside it, and MCP requests to a real
// `rukh mcp serve`.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDir } from "@rukh/testkit";
import { runCli, spawnCli } from "@rukh/testkit/cli";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll } from "vitest";

/**
 * A fresh work directory (removed after the file's tests), its state
 * directory `home`, and `rukh` run there; `servesAgents`: the owner consents
 * to serving its host-trusted default preset to MCP clients, first.
 */
export function authorWork(
  prefix: string,
  path = process.env.PATH ?? "/usr/bin:/bin",
  servesAgents = false,
) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => removeDir(work));
  const home = join(work, "home");
  const env = { PATH: path, RUKH_HOME: home };
  const rukh = (...args: string[]) => runCli({ args, env, cwd: work });
  // An author who serves the host-trusted default preset to MCP clients consents to it, as its owner.
  if (servesAgents)
    beforeAll(() => {
      const r = rukh(
        "preset",
        "consent",
        "default",
        "the author's own MCP clients, on this machine",
      );
      if (r.status !== 0) throw new Error(`preset consent: ${r.stderr}`);
    });
  return { work, home, env, rukh };
}

/**
 * Sends each request (ids 1, 2, …) to one new `rukh mcp serve <args>` and
 * returns the answers by id. Input stays open until every answer is in: its
 * end would be the client leaving.
 */
export async function mcpRequests(
  env: Record<string, string>,
  args: readonly string[],
  requests: readonly object[],
  // biome-ignore lint/suspicious/noExplicitAny: the tests read wire messages member by member
): Promise<Record<string, any>[]> {
  const lines = await mcpLines(env, args, requests, (seen) => seen.length === requests.length);
  return lines.sort((a, b) => a.id - b.id);
}

/**
 * Every message one new `rukh mcp serve <args>` writes, in order, once `done`
 * holds for what came so far and `settleMs` more have passed (so a message
 * that should never come has the chance to).
 */
export function mcpLines(
  env: Record<string, string>,
  args: readonly string[],
  requests: readonly object[],
  // biome-ignore lint/suspicious/noExplicitAny: the tests read wire messages member by member
  done: (seen: Record<string, any>[]) => boolean,
  settleMs = 0,
  // biome-ignore lint/suspicious/noExplicitAny: as above
): Promise<Record<string, any>[]> {
  return new Promise((resolve, reject) => {
    const child = spawnCli({ args: ["mcp", "serve", ...args], env }, ["pipe", "pipe", "ignore"]);
    let out = "";
    let finishing = false;
    const parsed = () =>
      out
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      if (finishing || !done(parsed())) return;
      finishing = true;
      setTimeout(() => {
        child.stdin!.end();
        resolve(parsed());
      }, settleMs);
    });
    child.on("exit", () => {
      if (!finishing) reject(new Error(`the server ended after: ${out}`));
    });
    requests.forEach((r, i) => {
      child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id: i + 1, ...r })}\n`);
    });
  });
}

/** A `tools/call` request of `name` with `args`. */
export const toolCall = (name: string, args: object) => ({
  method: "tools/call",
  params: { name, arguments: args, _meta: MODERN_META },
});
