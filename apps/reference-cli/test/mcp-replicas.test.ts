import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type JournalFinalRecord,
  type JournalStartRecord,
  LOST_HOST_SWEEP_MS,
  readJournal,
} from "@rukh/core";
import { removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { nginxMissing, startNginx } from "@rukh/testkit/nginx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, httpState, mcpPost, mcpRequest, serveHttpProcess } from "./_http.js";

// Two `rukh mcp serve --http` replicas on one state directory behind a real
// nginx: interchangeable (a cursor of one is good at the other, the same
// list for the same binding), a publication reaches both, one killed
// with SIGKILL under load loses no call to a second run, and the calls it
// was running are finalized by the one that lives on.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** What a test asks of either SDK's client. */
interface RealClient {
  listTools(cursor?: string): Promise<{
    tools: { name: string; description?: string | undefined }[];
    nextCursor?: string | undefined;
  }>;
  call(
    name: string,
    args: Record<string, unknown>,
    options?: { onprogress?: (p: { progress: number }) => void; signal?: AbortSignal },
  ): Promise<unknown>;
  close(): Promise<void>;
}
const missing = nginxMissing();
if (missing !== undefined) console.warn(`skipping the replicas behind nginx: ${missing}`);

/** Two replicas on one state directory (`more` extra tools), nginx in front, a real issuer and a token. */
async function replicasBehindNginx(prefix: string, more: number) {
  const [front, p1, p2] = [await freePort(), await freePort(), await freePort()];
  const resource = `http://127.0.0.1:${front}/mcp`;
  const op: TestIssuer = await startIssuer({ resources: [resource], scopes: "mcp mcp.narrow" });
  const { work, root } = await httpState(prefix, resource, op.issuer, more);
  const direct = [`127.0.0.1:${p1}`, `127.0.0.1:${p2}`];
  const replicas = [
    await serveHttpProcess(root, direct[0]!),
    await serveHttpProcess(root, direct[1]!),
  ];
  const nginxDir = mkdtempSync(join(tmpdir(), "rukh-nginx-"));
  const lb = await startNginx(nginxDir, front, direct);
  const token = await op.token("alice-agent", resource, "mcp");
  return {
    op,
    work,
    root,
    resource,
    direct,
    replicas,
    token,
    async stop() {
      for (const r of replicas) r.child.kill("SIGKILL");
      await lb.stop();
      await op.close();
      removeDir(work);
      removeDir(nginxDir);
    },
  };
}

describe.skipIf(missing !== undefined)("replicas behind nginx", () => {
  let op: TestIssuer;
  let root: string;
  let resource: string;
  let direct: string[] = [];
  let replicas: Awaited<ReturnType<typeof serveHttpProcess>>[] = [];
  let token: string;
  let set: Awaited<ReturnType<typeof replicasBehindNginx>> | undefined;
  const rukh = (...args: string[]) => runCli({ args, stateDir: root });

  beforeAll(async () => {
    set = await replicasBehindNginx("rukh-cli-replicas-", 40);
    ({ op, root, resource, direct, replicas, token } = set);
  }, 60_000);
  afterAll(async () => {
    await set?.stop();
  });

  /** One request to `at` (a replica's address, or nginx's by default), as the resource's host. */
  async function rpc(method: string, params: Record<string, unknown> = {}, at?: string) {
    const url = at === undefined ? resource : `http://${at}/mcp`;
    const res = await mcpPost(url, token, method, params);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  /** Every tool `at` lists, page by page. */
  async function allTools(at?: string): Promise<{ name: string; description?: string }[]> {
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await rpc("tools/list", cursor === undefined ? {} : { cursor }, at);
      expect(page.status).toBe(200);
      tools.push(...page.body.result.tools);
      cursor = page.body.result.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  it("lists the same for the same binding at either replica, and honours one's cursor at the other", async () => {
    const [a, b] = [await rpc("tools/list", {}, direct[0]), await rpc("tools/list", {}, direct[1])];
    expect(a.status).toBe(200);
    expect(b.body.result.tools).toEqual(a.body.result.tools);
    const cursor = a.body.result.nextCursor as string;
    expect(cursor).toBeDefined();
    const next = await rpc("tools/list", { cursor }, direct[1]);
    expect(next.status).toBe(200);
    expect(next.body.result.tools.length).toBeGreaterThan(0);
    const names = [...a.body.result.tools, ...next.body.result.tools].map(
      (t: { name: string }) => t.name,
    );
    expect(new Set(names).size).toBe(42);
  });

  // Each real client in the era it speaks: it reads the 401's metadata,
  // finds the issuer, asks it for a token for this resource, and tries
  // again; then it lists every page, calls with progress and cancels, each
  // request landing on either replica.
  describe.each([
    ["SDK 2.x, 2026-07-28", "2026-07-28"],
    ["SDK 2.x, its 2025-11-25 handshake", "2025-11-25"],
    ["SDK 1.x, 2025-11-25", "v1"],
  ] as const)("a real client through nginx: %s", (_name, kind) => {
    const oauth = () =>
      new ClientCredentialsProvider({
        clientId: "alice-agent",
        clientSecret: "alice-agent-secret",
        scope: "mcp",
        expectedIssuer: op.issuer,
      });
    async function connect(): Promise<RealClient> {
      if (kind === "v1") {
        const client = new V1Client({ name: "through-nginx-v1", version: "1.0.0" });
        await client.connect(new V1Transport(new URL(resource), { authProvider: oauth() }));
        return {
          listTools: (cursor) => client.listTools(cursor === undefined ? {} : { cursor }),
          call: (name, args, options) =>
            client.callTool({ name, arguments: args }, undefined, options),
          close: () => client.close(),
        };
      }
      const client = new Client(
        { name: "through-nginx", version: "1.0.0" },
        kind === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
      );
      const auth = oauth();
      await client.connect(
        new StreamableHTTPClientTransport(new URL(resource), { authProvider: auth }),
      );
      expect(auth.tokens()?.access_token).toMatch(/^eyJ/);
      expect(client.getProtocolEra()).toBe(kind === "2026-07-28" ? "modern" : "legacy");
      return {
        listTools: (cursor) => client.listTools(cursor === undefined ? {} : { cursor }),
        call: (name, args, options) => client.callTool({ name, arguments: args }, options),
        close: () => client.close(),
      };
    }
    const napOf = async (client: RealClient) => {
      const tools = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(tools).toHaveLength(42);
      return tools.find((t) => t.description?.includes("Sleep"))!.name;
    };

    it("lists every page, calls with progress, and is refused without a token", async () => {
      const client = await connect();
      try {
        const nap = await napOf(client);
        const seen: number[] = [];
        const r = await client.call(
          nap,
          { tag: "lb", wait_ms: 500 },
          {
            onprogress: (p) => seen.push(p.progress),
          },
        );
        expect((r as { structuredContent?: unknown }).structuredContent).toMatchObject({
          outcome: "succeeded",
          commandResult: { data: { tag: "lb" } },
        });
        expect(seen.length).toBeGreaterThan(0);
        for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
      } finally {
        await client.close();
      }
      const anonymous = await fetch(resource, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "x", version: "1" },
          },
        }),
      });
      expect(anonymous.status).toBe(401);
    });

    it("cancels a call, whichever replica its cancellation reaches: journaled once, cancelled", async () => {
      const client = await connect();
      try {
        const nap = await napOf(client);
        // Calls journaled before this one (each replica writes its own segment,
        // so a new record need not come after all the old ones).
        const before = new Set((await readJournal(root)).records.map((r) => r.invocationId));
        const abort = new AbortController();
        const call = client.call(
          nap,
          { tag: `cancel-${kind}`, wait_ms: 25_000 },
          { signal: abort.signal },
        );
        await sleep(1_500);
        abort.abort();
        await call.then(
          (r) => expect((r as { isError?: boolean }).isError).toBe(true),
          () => {},
        );
        // The one call this test started, and its one final.
        let final: JournalFinalRecord | undefined;
        for (let i = 0; i < 100 && final === undefined; i++) {
          const records = (await readJournal(root)).records.filter(
            (r) => !before.has(r.invocationId),
          );
          const starts = records.filter((x): x is JournalStartRecord => x.type === "start");
          expect(starts.length).toBeLessThanOrEqual(1);
          final = records.find(
            (x): x is JournalFinalRecord =>
              x.type === "final" && x.invocationId === starts[0]?.invocationId,
          );
          if (final === undefined) await sleep(100);
        }
        expect(final?.outcome).toBe("cancelled");
        expect(final?.reason).toBe("client_cancel");
      } finally {
        await client.close();
      }
    });
  });

  it("shows a publication to every replica's next request", async () => {
    expect(await allTools(direct[0])).toHaveLength(42);
    // Two publications: the extra commands leave the default preset.
    expect(rukh("preset", "deny", "default", "fx.see/*").status).toBe(0);
    expect(rukh("preset", "allow", "default", "fx.see/see", "fx.see/nap").status).toBe(0);
    for (const at of direct) {
      const tools = await allTools(at);
      expect(tools).toHaveLength(2);
      expect(tools.some((t) => t.description === "Extra command 0")).toBe(false);
    }
  });

  it("answers 500 concurrent requests through nginx, every one", async () => {
    // Each request holds two of nginx's connections, the client's and a
    // replica's: nginx's default of 512 per worker resets about half of them.
    const N = 500;
    const answers = await Promise.all(
      Array.from({ length: N }, () =>
        mcpPost(resource, token, "tools/list")
          .then(async (r) => {
            const body = (await r.json()) as { result?: { tools?: unknown[] } };
            return r.status === 200 && Array.isArray(body.result?.tools) ? "ok" : `${r.status}`;
          })
          // A connection reset before or while the answer is read.
          .catch((e: Error) => String((e.cause as Error | undefined)?.message ?? e.message)),
      ),
    );
    const counts: Record<string, number> = {};
    for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
    expect(counts).toEqual({ ok: N });
  }, 60_000);

  it("loses no call to a second run when a replica is killed under load; the survivor serves the rest", async () => {
    const nap = (await allTools()).find((t) => t.description?.includes("Sleep"))!.name;
    // Calls made by the tests before this one (the SDK client's) are not this test's.
    const napStarts = async () =>
      (await readJournal(root)).records.filter(
        (r) => r.type === "start" && r.command === "fx.see/nap",
      ) as { inputsDigest: string; invocationId: string }[];
    const earlier = new Set((await napStarts()).map((s) => s.invocationId));
    const CALLS = 200;
    const results: ({ outcome: string; invocationId: string } | { transport: string })[] = [];
    let next = 0;
    let killedAt = -1;
    const worker = async () => {
      while (next < CALLS) {
        const i = next++;
        if (i === 60) {
          killedAt = i;
          replicas[0]!.child.kill("SIGKILL");
        }
        try {
          const r = await rpc("tools/call", {
            name: nap,
            arguments: { wait_ms: 40, tag: `t${i}` },
          });
          const env = r.body.result?.structuredContent;
          results[i] =
            env !== undefined
              ? { outcome: env.outcome, invocationId: env.invocationId }
              : { transport: `${r.status}` };
        } catch (e) {
          results[i] = { transport: String(e) };
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(killedAt).toBe(60);
    expect(results.filter((r) => r !== undefined)).toHaveLength(CALLS);
    const lost = results.filter((r) => "transport" in r);
    const done = results.filter(
      (r): r is { outcome: string; invocationId: string } => "outcome" in r,
    );
    // Only calls in flight on the killed replica may be lost, as transport errors; none after.
    expect(lost.length).toBeLessThanOrEqual(16);
    expect(results.slice(100).every((r) => "outcome" in r && r.outcome === "succeeded")).toBe(true);
    expect(done.every((r) => r.outcome === "succeeded")).toBe(true);
    // No call ran twice: one start record per call's inputs, and no invocation answered twice.
    const starts = (await napStarts()).filter((s) => !earlier.has(s.invocationId));
    const perInputs = new Map<string, number>();
    for (const s of starts) perInputs.set(s.inputsDigest, (perInputs.get(s.inputsDigest) ?? 0) + 1);
    expect([...perInputs.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(done.map((r) => r.invocationId)).size).toBe(done.length);
    expect(starts.length).toBeGreaterThanOrEqual(done.length);
    expect(starts.length).toBeLessThanOrEqual(done.length + lost.length);
    console.log(
      `replica killed after call 60 of ${CALLS}: ${done.length} outcomes, ${lost.length} transport errors, ${starts.length} starts journaled`,
    );
    // The survivor is still serving.
    expect((await rpc("tools/list", {}, direct[1])).status).toBe(200);
  }, 120_000);
});

describe.skipIf(missing !== undefined)("a replica killed mid-call behind nginx", () => {
  let set: Awaited<ReturnType<typeof replicasBehindNginx>>;
  beforeAll(async () => {
    set = await replicasBehindNginx("rukh-cli-lost-", 0);
  }, 60_000);
  afterAll(async () => {
    await set?.stop();
  });

  /** Each call's start and finals, read from the journal's files as they are now. */
  async function callsIn(root: string) {
    const calls = new Map<string, { start?: JournalStartRecord; finals: JournalFinalRecord[] }>();
    for (const r of (await readJournal(root)).records) {
      const call = calls.get(r.invocationId) ?? { finals: [] };
      if (r.type === "start") call.start = r;
      else if (r.type === "final") call.finals.push(r);
      calls.set(r.invocationId, call);
    }
    return calls;
  }

  it("has the replica that lives on finalize each call of the killed one as host_lost within seconds, no host started", async () => {
    const { root, resource, token, replicas } = set;
    const listed = (await (await mcpPost(resource, token, "tools/list")).json()) as {
      result: { tools: { name: string; description?: string }[] };
    };
    const nap = listed.result.tools.find((t) => t.description?.includes("Sleep"))!.name;
    // Long calls through nginx, spread over both replicas; each is cancelled at the end.
    const CALLS = 8;
    const aborts = Array.from({ length: CALLS }, () => new AbortController());
    const answers = aborts.map((a, i) =>
      mcpRequest({
        url: resource,
        token,
        method: "tools/call",
        params: { name: nap, arguments: { wait_ms: 25_000, tag: `long${i}` } },
        signal: a.signal,
      }).then(
        (r) => r.status,
        () => "aborted",
      ),
    );
    let calls = await callsIn(root);
    const started = () => [...calls.values()].filter((c) => c.start !== undefined);
    for (let i = 0; i < 400 && started().length < CALLS; i++) {
      await sleep(50);
      calls = await callsIn(root);
    }
    expect(started()).toHaveLength(CALLS);
    expect(started().every((c) => c.finals.length === 0)).toBe(true);
    // Each replica is a host of its own; the one running more of the calls is killed.
    const on = replicas.map((r) => started().filter((c) => c.start!.pid === r.child.pid));
    const [victim, survivor] = on[0]!.length >= on[1]!.length ? [0, 1] : [1, 0];
    const lost = on[victim]!.map((c) => c.start!.invocationId);
    expect(lost.length).toBeGreaterThanOrEqual(CALLS / 2);
    // nginx takes turns: the other has calls too.
    expect(on[survivor]!.length).toBe(CALLS - lost.length);
    expect(lost.length).toBeLessThan(CALLS);
    const victimHost = on[victim]![0]!.start!.host;
    const survivorHost = on[survivor]![0]!.start!.host;
    replicas[victim]!.child.kill("SIGKILL");
    const killedAt = Date.now();
    await replicas[victim]!.exited;

    // No host starts and no command runs on the state directory: only the
    // journal's files are read until the killed replica's calls have finals.
    const BOUND_MS = LOST_HOST_SWEEP_MS + 8_000;
    const unfinished = () => lost.filter((id) => calls.get(id)!.finals.length === 0);
    while (unfinished().length > 0 && Date.now() - killedAt < BOUND_MS) {
      await sleep(100);
      calls = await callsIn(root);
    }
    const took = Date.now() - killedAt;
    console.log(
      `${lost.length - unfinished().length} of the killed replica's ${lost.length} calls had their final ${took} ms after the kill`,
    );
    expect(unfinished()).toEqual([]);
    expect(took).toBeLessThan(BOUND_MS);
    for (const id of lost)
      expect(calls.get(id)!.finals).toEqual([
        expect.objectContaining({
          outcome: "execution_failed",
          reason: "host_lost",
          host: survivorHost,
        }),
      ]);
    // The other replica's calls run on, untouched, until their clients go.
    for (const c of on[survivor]!) expect(calls.get(c.start!.invocationId)!.finals).toEqual([]);
    for (const a of aborts) a.abort();
    await Promise.all(answers);
    const open = () => [...calls.values()].filter((c) => c.finals.length === 0);
    for (let i = 0; i < 100 && open().length > 0; i++) {
      await sleep(100);
      calls = await callsIn(root);
    }
    // One final per call, and no host but the two replicas wrote to the journal.
    expect([...calls.values()].map((c) => c.finals.length)).toEqual(Array(CALLS).fill(1));
    const hosts = new Set(
      [...calls.values()].flatMap((c) => [c.start!.host, ...c.finals.map((f) => f.host)]),
    );
    expect([...hosts].sort()).toEqual([victimHost, survivorHost].sort());
  }, 90_000);
});
