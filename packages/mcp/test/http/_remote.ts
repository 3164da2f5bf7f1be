import { readJournal } from "@rukh/core";
import { createResourceServer } from "@rukh/oauth";
import { freePort } from "@rukh/testkit";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { afterAll, beforeAll } from "vitest";
import { type McpHttpHost, serveHttp } from "../../src/index.js";
import { toolNameOf, useState } from "../_helpers.js";

/** One Streamable HTTP host behind the test issuer, as the real-client tests reach it. */
export interface RemoteHost {
  /** The endpoint's URL (the token audience). */
  resource: string;
  /** The test issuer (alice-agent / alice-agent-secret take tokens there). */
  op: TestIssuer;
  /** The state directory's root, whose journal the host writes. */
  root: string;
  /** A folder of the test's own, removed after it: clients' homes go there. */
  work: string;
  /** The tool names of fx.main's greet, progress and slow. */
  greet: string;
  progress: string;
  slow: string;
}

/**
 * A fresh state directory served by one `serveHttp` host with the test
 * issuer's tokens (scope `mcp`), started before a file's tests and closed
 * after them; its fields are set once `beforeAll` has run. Browsers' pages
 * from `allowedOrigins` may call it too.
 */
export function useRemoteHost(options: { allowedOrigins?: () => readonly string[] } = {}) {
  const at = useState();
  const remote = {} as RemoteHost;
  let host: McpHttpHost | undefined;
  beforeAll(async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const op = await startIssuer({ resources: [resource], scopes: "mcp" });
    Object.assign(remote, { resource, op, root: at.root, work: at.work });
    host = await serveHttp({
      state: at.state,
      resource,
      listen: { port },
      authenticator: createResourceServer({
        resource,
        issuer: op.issuer,
        requiredScopes: ["mcp"],
        defaultPreset: "default",
      }),
      ...(options.allowedOrigins !== undefined && { allowedOrigins: options.allowedOrigins() }),
    });
    remote.greet = await toolNameOf(at.state, "fx.main/greet");
    remote.progress = await toolNameOf(at.state, "fx.main/progress");
    remote.slow = await toolNameOf(at.state, "fx.main/slow");
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await remote.op?.close();
  });
  return remote;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read journal records member by member
type JournalRecord = Record<string, any>;

/** The journal's records from index `since` on. */
export async function journalSince(root: string, since = 0): Promise<JournalRecord[]> {
  return ((await readJournal(root)).records as unknown as JournalRecord[]).slice(since);
}

/** Waits for the final record of a call of `identity` that started at index `since` or later. */
export async function finalOf(
  root: string,
  identity: string,
  since: number,
): Promise<JournalRecord> {
  for (let i = 0; i < 300; i++) {
    const records = await journalSince(root, since);
    const start = records.find((r) => r.type === "start" && r.command === identity);
    const final =
      start && records.find((r) => r.type === "final" && r.invocationId === start.invocationId);
    if (final !== undefined) return final;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no final record of ${identity}`);
}
