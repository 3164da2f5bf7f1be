import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { readJournal } from "@rukh/core";
import { createResourceServer } from "@rukh/oauth";
import { freePort } from "@rukh/testkit";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARKS_MAX } from "../../src/http/_legacy-cancels.js";
import { type McpHttpHost, serveHttp } from "../../src/index.js";
import { toolNameOf, useState } from "../_helpers.js";

// The 2025 eras over Streamable HTTP, beside 2026-07-28 on the same URL:
// the SDKs' own HTTP clients, in the handshake era, find the issuer from the
// endpoint's challenge, take a token there, list, call, hear progress,
// cancel, and are refused without a token. Nothing is kept between requests:
// each POST names its era.
const at = useState();
let op: TestIssuer;
let host: McpHttpHost;
let resource: string;
/** A second replica on the same state directory. */
let twin: McpHttpHost;
let twinResource: string;
let greet: string;
let slow: string;
let progress: string;

beforeAll(async () => {
  const [port, twinPort] = [await freePort(), await freePort()];
  resource = `http://127.0.0.1:${port}/mcp`;
  twinResource = `http://127.0.0.1:${twinPort}/mcp`;
  op = await startIssuer({ resources: [resource, twinResource], scopes: "mcp mcp.narrow" });
  const replica = (url: string, p: number) =>
    serveHttp({
      state: at.state,
      resource: url,
      listen: { port: p },
      authenticator: createResourceServer({
        resource: url,
        issuer: op.issuer,
        requiredScopes: ["mcp"],
        presets: [{ scope: "mcp.narrow", preset: "narrow" }],
        defaultPreset: "default",
      }),
    });
  host = await replica(resource, port);
  twin = await replica(twinResource, twinPort);
  greet = await toolNameOf(at.state, "fx.main/greet");
  slow = await toolNameOf(at.state, "fx.main/slow");
  progress = await toolNameOf(at.state, "fx.main/progress");
}, 30_000);
afterAll(async () => {
  await host?.close();
  await twin?.close();
  await op?.close();
});

/** A real client's own OAuth: from the endpoint's 401 to the issuer's token, by client credentials. */
const credentials = () =>
  new ClientCredentialsProvider({
    clientId: "alice-agent",
    clientSecret: "alice-agent-secret",
    scope: "mcp",
    expectedIssuer: op.issuer,
  });

type Era2025 = "2025-11-25" | "2025-06-18";

async function v1(): Promise<V1Client> {
  const client = new V1Client({ name: "rukh-test-v1", version: "1.0.0" });
  await client.connect(new V1Transport(new URL(resource), { authProvider: credentials() }));
  return client;
}

async function v2(): Promise<Client> {
  const client = new Client({ name: "rukh-test-v2", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), { authProvider: credentials() }),
  );
  return client;
}

const outcomeOf = (r: unknown) =>
  (r as { structuredContent?: { outcome?: string } }).structuredContent?.outcome;

/** What a test asks of either SDK's client: its list, and a call with progress and a signal. */
interface Connected {
  listTools(): Promise<{ tools: { name: string }[] }>;
  call(
    name: string,
    args: Record<string, unknown>,
    options?: { onprogress?: (p: { progress: number }) => void; signal?: AbortSignal },
  ): Promise<unknown>;
  close(): Promise<void>;
  readonly serverName: string | undefined;
}

async function connectV1(): Promise<Connected> {
  const client = await v1();
  return {
    listTools: () => client.listTools(),
    call: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
    close: () => client.close(),
    serverName: client.getServerVersion()?.name,
  };
}

async function connectV2(): Promise<Connected> {
  const client = await v2();
  return {
    listTools: () => client.listTools(),
    call: (name, args, options) => client.callTool({ name, arguments: args }, options),
    close: () => client.close(),
    serverName: client.getServerVersion()?.name,
  };
}

/** The journal's final outcome of the call with this invocation id. */
async function finalOf(invocationId: string): Promise<Record<string, unknown> | undefined> {
  const records = (await readJournal(at.root)).records as unknown as Record<string, unknown>[];
  return records.find((r) => r.type === "final" && r.invocationId === invocationId);
}

/** Waits until the journal holds a call of `tool` that started and then ended, and returns its final. */
async function lastFinal(since: ReadonlySet<string>): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const records = (await readJournal(at.root)).records as unknown as Record<string, unknown>[];
    const finals = records.filter(
      (r) => !since.has(r.invocationId as string) && r.type === "final",
    );
    if (finals.length > 0) return finals.at(-1)!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no final record");
}

describe.each([
  ["TypeScript SDK 1.x", connectV1],
  ["TypeScript SDK 2.x in its handshake era", connectV2],
] as const)("%s over Streamable HTTP", (_name, connect) => {
  it("takes its token from the issuer the endpoint names, in the 2025-11-25 handshake", async () => {
    const client = await connect();
    try {
      expect(client.serverName).toBeTruthy();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain(greet);
    } finally {
      await client.close();
    }
  });

  it("calls a tool, and hears its progress before its result", async () => {
    const client = await connect();
    try {
      const called = await client.call(greet, { name: "Ada" });
      expect(outcomeOf(called)).toBe("succeeded");
      const heard: number[] = [];
      const withProgress = await client.call(
        progress,
        {},
        {
          onprogress: (p) => heard.push(p.progress),
        },
      );
      expect(outcomeOf(withProgress)).toBe("succeeded");
      expect(heard.length).toBeGreaterThan(0);
      for (let i = 1; i < heard.length; i++) expect(heard[i]).toBeGreaterThan(heard[i - 1]!);
    } finally {
      await client.close();
    }
  });

  it("gets a JSON-RPC error as that error, not as a failed transport", async () => {
    const client = await connect();
    try {
      // An unknown tool is -32602 to the caller, as over stdio; not an HTTP 400 the client throws.
      await expect(client.call("no_such_tool__0000", {})).rejects.toMatchObject({ code: -32602 });
      // And the client goes on.
      expect(outcomeOf(await client.call(greet, { name: "Cy" }))).toBe("succeeded");
    } finally {
      await client.close();
    }
  });

  it("cancels a call: the command ends cancelled, journaled once", async () => {
    const client = await connect();
    try {
      const since = new Set((await readJournal(at.root)).records.map((r) => r.invocationId));
      const abort = new AbortController();
      const call = client.call(slow, { wait_ms: 20_000 }, { signal: abort.signal });
      await new Promise((r) => setTimeout(r, 800));
      abort.abort();
      await expect(call).rejects.toThrow();
      const final = await lastFinal(since);
      expect(final.outcome).toBe("cancelled");
      expect(await finalOf(final.invocationId as string)).toEqual(final);
    } finally {
      await client.close();
    }
  });
});

describe("the 2025 eras on the wire", () => {
  const post = async (body: object, headers: Record<string, string> = {}, token?: string) => {
    const res = await fetch(resource, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token ?? (await op.token("alice-agent", resource, "mcp"))}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const initialize = (version: string) => ({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });

  it.each(["2025-06-18", "2025-11-25"] satisfies Era2025[])(
    "initialize %s: that version, no session id; then every request names it in its header",
    async (version) => {
      const init = await post(initialize(version));
      expect(init.status).toBe(200);
      expect(JSON.parse(init.text).result.protocolVersion).toBe(version);
      expect(init.headers.get("mcp-session-id")).toBeNull();
      const list = await post(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { "mcp-protocol-version": version },
      );
      expect(list.status).toBe(200);
      expect(JSON.parse(list.text).result.tools.length).toBeGreaterThan(0);
      // The 2026 era's marks are not this era's.
      expect(JSON.parse(list.text).result.resultType).toBeUndefined();
      const ping = await post(
        { jsonrpc: "2.0", id: 3, method: "ping" },
        { "mcp-protocol-version": version },
      );
      expect(JSON.parse(ping.text).result).toEqual({});
    },
  );

  /** The one JSON-RPC answer of a JSON body or of an event stream (its last message). */
  const answerOf = (r: { headers: Headers; text: string }) =>
    r.headers.get("content-type") === "text/event-stream"
      ? JSON.parse(
          r.text
            .split("\n")
            .filter((l) => l.startsWith("data: "))
            .at(-1)!
            .slice(6),
        )
      : JSON.parse(r.text);

  it.each(["2025-06-18", "2025-11-25"] satisfies Era2025[])(
    "%s: an error is the request's answer, on a 200, as that era's clients read it",
    async (version) => {
      const h = { "mcp-protocol-version": version };
      const errors = [
        [-32601, await post({ jsonrpc: "2.0", id: 5, method: "prompts/list" }, h)],
        [
          -32602,
          await post(
            { jsonrpc: "2.0", id: 6, method: "tools/list", params: { cursor: "stale" } },
            h,
          ),
        ],
        [
          -32602,
          await post(
            {
              jsonrpc: "2.0",
              id: 7,
              method: "tools/call",
              params: { name: "no_such_tool__0000", arguments: {} },
            },
            h,
          ),
        ],
      ] as const;
      for (const [code, r] of errors) {
        expect([code, r.status]).toEqual([code, 200]);
        expect(answerOf(r).error.code).toBe(code);
      }
    },
  );

  it("an initialize for a version it does not serve is answered with its newest 2025 version", async () => {
    const init = await post(initialize("2024-11-05"));
    expect(JSON.parse(init.text).result.protocolVersion).toBe("2025-11-25");
  });

  it.each([
    ["no MCP-Protocol-Version", {}],
    ["a version it does not serve", { "mcp-protocol-version": "2025-03-26" }],
    ["a malformed one", { "mcp-protocol-version": "yesterday" }],
  ])("a request after initialize with %s: 400, naming both ways in", async (_what, headers) => {
    const r = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers);
    expect(r.status).toBe(400);
    const error = JSON.parse(r.text).error;
    expect(error.code).toBe(-32600);
    expect(error.message).toContain("2025-11-25, 2025-06-18");
    expect(error.message).toContain("2026-07-28");
  });

  it("notifications are accepted (202), a 2025-era call streams, and a token is still required", async () => {
    const note = await post(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { "mcp-protocol-version": "2025-11-25" },
    );
    expect(note.status).toBe(202);
    const call = await post(
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: greet, arguments: { name: "Bo" } },
      },
      { "mcp-protocol-version": "2025-11-25" },
    );
    expect(call.status).toBe(200);
    expect(call.headers.get("content-type")).toBe("text/event-stream");
    // No event ids: there is no stream to resume with GET.
    expect(call.text).not.toMatch(/^id:/m);
    expect(call.text).toContain('"outcome":"succeeded"');
    const anonymous = await fetch(resource, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initialize("2025-11-25")),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="/);
  });

  it("a 2025-era call's stream opens when the call starts, not with its first event", async () => {
    // A client may send nothing more until a response begins: the Python SDK
    // holds its OAuth lock until then, so its cancellation would wait for the call.
    const since = new Set((await readJournal(at.root)).records.map((r) => r.invocationId));
    const abort = new AbortController();
    const res = await fetch(resource, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${await op.token("alice-agent", resource, "mcp")}`,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: slow, arguments: { wait_ms: 15_000 } },
      }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const records = (await readJournal(at.root)).records.filter(
      (r) => !since.has(r.invocationId),
    ) as unknown as {
      type: string;
    }[];
    expect(records.filter((r) => r.type === "final")).toEqual([]);
    abort.abort();
    expect((await lastFinal(since)).outcome).toBe("cancelled");
  });

  it("GET and DELETE: 405, as for a server with no standalone stream and no sessions", async () => {
    for (const method of ["GET", "DELETE"]) {
      const r = await fetch(resource, {
        method,
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${await op.token("alice-agent", resource, "mcp")}`,
          "mcp-protocol-version": "2025-11-25",
        },
      });
      expect([method, r.status]).toEqual([method, 405]);
      expect(r.headers.get("allow")).toBe("POST");
    }
  });

  it("a notifications/cancelled from another subject cancels nothing", async () => {
    const since = new Set((await readJournal(at.root)).records.map((r) => r.invocationId));
    const alice = await op.token("alice-agent", resource, "mcp");
    const bob = await op.token("bob-agent", resource, "mcp");
    const call = post(
      {
        jsonrpc: "2.0",
        id: 77,
        method: "tools/call",
        params: { name: slow, arguments: { wait_ms: 1_500 } },
      },
      { "mcp-protocol-version": "2025-11-25" },
      alice,
    );
    await new Promise((r) => setTimeout(r, 500));
    const cancel = await post(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 77 } },
      { "mcp-protocol-version": "2025-11-25" },
      bob,
    );
    expect(cancel.status).toBe(202);
    expect((await call).text).toContain('"outcome":"succeeded"');
    expect((await lastFinal(since)).outcome).toBe("succeeded");
  });

  it("a notifications/cancelled that reaches another replica cancels the call where it runs", async () => {
    const since = new Set((await readJournal(at.root)).records.map((r) => r.invocationId));
    const call = post(
      {
        jsonrpc: "2.0",
        id: 91,
        method: "tools/call",
        params: { name: slow, arguments: { wait_ms: 20_000 } },
      },
      { "mcp-protocol-version": "2025-11-25" },
    );
    await new Promise((r) => setTimeout(r, 800));
    const t0 = Date.now();
    const cancel = await fetch(twinResource, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${await op.token("alice-agent", twinResource, "mcp")}`,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 91 },
      }),
    });
    expect(cancel.status).toBe(202);
    const answered = await call;
    // Cancelled: the stream ends with no answer, long before the 20 s nap.
    expect(answered.text).not.toContain('"result"');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await lastFinal(since)).outcome).toBe("cancelled");
  });

  // Last in this file: it leaves the marks it could not avoid leaving.
  it("a flood of cancellations for requests nobody holds leaves at most 256 marks", async () => {
    const token = await op.token("alice-agent", resource, "mcp");
    for (let i = 0; i < MARKS_MAX + 60; i++) {
      const r = await post(
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: `flood-${i}` } },
        { "mcp-protocol-version": "2025-11-25" },
        token,
      );
      expect(r.status).toBe(202);
    }
    const marks = readdirSync(join(at.root, "journal", "cancels"));
    expect(marks.length).toBe(MARKS_MAX);
    // What a mark is named says nothing of who left it or for which request.
    expect(marks.every((m) => /^[0-9a-f]{64}$/.test(m))).toBe(true);
  }, 60_000);
});
