import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readJournal } from "@rukh/core";
import { createResourceServer } from "@rukh/oauth";
import { freePort, removeDir } from "@rukh/testkit";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { nginxMissing, startNginx } from "@rukh/testkit/nginx";
import { afterAll, beforeAll } from "vitest";
import { type McpHttpHost, serveHttp } from "../../src/index.js";
import { toolNameOf, useState } from "../_helpers.js";

/** The Streamable HTTP endpoint the real-client tests reach: two replicas behind nginx, and the test issuer. */
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
 * A fresh state directory served as a team serves it: two `serveHttp`
 * replicas on it behind nginx (the guide's configuration), with the test
 * issuer's tokens (scope `mcp`), started before a file's tests and closed
 * after them; its fields are set once `beforeAll` has run. Where nginx is
 * not installed, one replica is reached directly, and a warning says so.
 * Browsers' pages from `allowedOrigins` may call it too.
 */
export function useRemoteHost(options: { allowedOrigins?: () => readonly string[] } = {}) {
  const at = useState();
  const remote = {} as RemoteHost;
  const hosts: McpHttpHost[] = [];
  let balancer: { stop(): Promise<void> } | undefined;
  let nginxDir: string | undefined;
  beforeAll(async () => {
    const missing = nginxMissing();
    if (missing !== undefined) console.warn(`one replica, reached directly: ${missing}`);
    const [front, ...ports] = [await freePort(), await freePort(), await freePort()];
    const resource = `http://127.0.0.1:${missing === undefined ? front : ports[0]}/mcp`;
    const op = await startIssuer({ resources: [resource], scopes: "mcp" });
    Object.assign(remote, { resource, op, root: at.root, work: at.work });
    for (const port of missing === undefined ? ports : ports.slice(0, 1))
      hosts.push(
        await serveHttp({
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
        }),
      );
    if (missing === undefined) {
      nginxDir = mkdtempSync(join(tmpdir(), "rukh-mcp-nginx-"));
      balancer = await startNginx(
        nginxDir,
        front!,
        ports.map((p) => `127.0.0.1:${p}`),
      );
    }
    remote.greet = await toolNameOf(at.state, "fx.main/greet");
    remote.progress = await toolNameOf(at.state, "fx.main/progress");
    remote.slow = await toolNameOf(at.state, "fx.main/slow");
  }, 60_000);
  afterAll(async () => {
    await balancer?.stop();
    for (const h of hosts) await h.close();
    await remote.op?.close();
    if (nginxDir !== undefined) removeDir(nginxDir);
  });
  return remote;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read journal records member by member
type JournalRecord = Record<string, any>;

/** The invocations the journal holds now: what a later {@link journalSince} leaves out. */
export async function journaledIds(root: string): Promise<ReadonlySet<string>> {
  return new Set((await readJournal(root)).records.map((r) => r.invocationId));
}

/**
 * The journal's records of invocations not in `before` (each replica writes
 * its own segment, so a new record need not come after every old one).
 */
export async function journalSince(
  root: string,
  before: ReadonlySet<string> = new Set(),
): Promise<JournalRecord[]> {
  return ((await readJournal(root)).records as unknown as JournalRecord[]).filter(
    (r) => !before.has(r.invocationId),
  );
}

/** Waits for the final record of a call of `identity` that is not among the invocations `since`. */
export async function finalOf(
  root: string,
  identity: string,
  since: ReadonlySet<string>,
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
