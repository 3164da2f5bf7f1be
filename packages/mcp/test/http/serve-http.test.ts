import { readdirSync, readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readJournal } from "@rukh/core";
import { createResourceServer } from "@rukh/oauth";
import { commandsDescriptor, freePort } from "@rukh/testkit";
import { makeExtension } from "@rukh/testkit/extension";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHost, serveHttp } from "../../src/index.js";
import { PROGRAMS, toolNameOf, useState, type Wire } from "../_helpers.js";

// MCP 2026-07-28 over Streamable HTTP, with a real authorization server's
// tokens: nothing is listed or run without one, each request runs under the
// binding its own token proves, and the token goes no further.
const at = useState();
let op: TestIssuer;
let twin: TestIssuer;
let host: McpHttpHost;
let resource: string;
let hostHeader: string;

beforeAll(async () => {
  // More tools than one page holds, so lists have cursors.
  const many = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}` }));
  await at.state.install(
    await makeExtension(at.work, commandsDescriptor("fx.hidden", "2.0.0", many), PROGRAMS),
  );
  const port = await freePort();
  hostHeader = `127.0.0.1:${port}`;
  resource = `http://${hostHeader}/mcp`;
  op = await startIssuer({ resources: [resource, `${resource}-other`], scopes: "mcp mcp.narrow" });
  twin = await startIssuer({ resources: [resource], scopes: "mcp", keysOf: op });
  const rs = createResourceServer({
    resource,
    issuer: op.issuer,
    requiredScopes: ["mcp"],
    presets: [{ scope: "mcp.narrow", preset: "narrow" }],
    defaultPreset: "default",
  });
  host = await serveHttp({
    state: at.state,
    resource,
    listen: { port },
    authenticator: rs,
    allowedOrigins: ["https://app.acme.test"],
  });
}, 30_000);
afterAll(async () => {
  await host?.close();
  await op?.close();
  await twin?.close();
});

const token = (scope = "mcp", client: "alice-agent" | "bob-agent" = "alice-agent") =>
  op.token(client, resource, scope);

interface Post {
  readonly method: string;
  readonly params?: Record<string, unknown>;
  readonly id?: number | string;
  readonly token?: string;
  readonly headers?: Record<string, string>;
  readonly omit?: readonly string[];
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** One POST as a 2026-07-28 client sends it, with `headers` over and `omit` left out. */
async function post(
  p: Post,
): Promise<{ status: number; headers: Headers; text: string; json?: Wire }> {
  const params: Record<string, unknown> = {
    ...p.params,
    _meta: { ...MODERN_META, ...(p.params?._meta as object) },
  };
  const message = { jsonrpc: "2.0", id: p.id ?? 1, method: p.method, params };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": p.method,
    ...(typeof params.name === "string" && { "mcp-name": params.name }),
    ...(p.token !== undefined && { authorization: `Bearer ${p.token}` }),
    ...p.headers,
  };
  for (const h of p.omit ?? []) delete headers[h];
  const res = await fetch(resource, {
    method: "POST",
    headers,
    body: p.body ?? JSON.stringify(message),
    ...(p.signal !== undefined && { signal: p.signal }),
  });
  const text = await res.text();
  let json: Wire;
  if (res.headers.get("content-type")?.startsWith("application/json")) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, json };
}

/** A subscriptions/listen request to `url` with `token`; the stream stays open until `signal` aborts. */
function listenRequest(url: string, token: string, id: string | number, signal?: AbortSignal) {
  return fetch(url, {
    method: "POST",
    ...(signal !== undefined && { signal }),
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true }, _meta: MODERN_META },
    }),
  });
}

/** The messages of an event-stream body, in order. */
function events(text: string): Wire[] {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").find((l) => l.startsWith("data: ")))
    .filter((l): l is string => l !== undefined)
    .map((l) => JSON.parse(l.slice(6)));
}

/**
 * The status of a tools/list POST sent with node:http, which sends the
 * request target and Host exactly as given (fetch normalizes the one and
 * sets the other).
 */
function rawList(token: string, over: { path?: string; host?: string }): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: MODERN_META },
  });
  return new Promise<number>((resolve, reject) => {
    const req = request(`http://${hostHeader}`, {
      method: "POST",
      path: over.path ?? "/mcp",
      headers: {
        ...(over.host !== undefined && { host: over.host }),
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The status of a tools/list POST whose request line is written by hand on
 * a socket, so that the target reaches the host exactly as given (an
 * absolute-form target included), with `Host` set to `host`.
 */
async function rawTarget(token: string, target: string, host = hostHeader): Promise<number> {
  const { connect } = await import("node:net");
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: MODERN_META },
  });
  const head = [
    `POST ${target} HTTP/1.1`,
    `Host: ${host}`,
    `Authorization: Bearer ${token}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "MCP-Protocol-Version: 2026-07-28",
    "Mcp-Method: tools/list",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
  ];
  const [h, port] = hostHeader.split(":");
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), h!, () =>
      socket.write(`${head.join("\r\n")}\r\n\r\n${body}`),
    );
    let got = "";
    socket.on("data", (d) => {
      got += d.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
  });
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
}

describe("without a valid token, nothing", () => {
  it("answers 401 with a challenge to the metadata it publishes, and lists nothing", async () => {
    const r = await post({ method: "tools/list" });
    expect(r.status).toBe(401);
    const challenge = r.headers.get("www-authenticate");
    const metadataUrl = `http://${hostHeader}/.well-known/oauth-protected-resource/mcp`;
    expect(challenge).toBe(`Bearer resource_metadata="${metadataUrl}", scope="mcp"`);
    expect(r.text).not.toContain("tools");
    const meta = await (await fetch(metadataUrl)).json();
    expect(meta).toEqual({
      resource,
      authorization_servers: [op.issuer],
      scopes_supported: ["mcp", "mcp.narrow"],
      bearer_methods_supported: ["header"],
    });
    // The root form of the well-known path serves the same document.
    expect(
      await (await fetch(`http://${hostHeader}/.well-known/oauth-protected-resource`)).json(),
    ).toEqual(meta);
  });

  it("runs nothing for a bad token, and says why", async () => {
    const tool = await toolNameOf(at.state, "fx.main/greet");
    const before = (await readJournal(at.root)).records.length;
    const r = await post({
      method: "tools/call",
      params: { name: tool, arguments: { name: "Ada" } },
      token: `${await token()}x`,
    });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await readJournal(at.root)).records.length).toBe(before);
  });

  it.each([
    ["expired", () => op.token("late", resource, "mcp"), 401, "it has expired"],
    ["not yet valid", () => op.token("early", resource, "mcp"), 401, "it is not valid yet"],
    [
      "for another resource",
      () => op.token("alice-agent", `${resource}-other`, "mcp"),
      401,
      "another resource",
    ],
    [
      "from another issuer",
      () => twin.token("alice-agent", resource, "mcp"),
      401,
      "another authorization server",
    ],
    [
      "with a forged signature",
      async () => `${(await token()).slice(0, -4)}AAAA`,
      401,
      "signature does not verify",
    ],
    ["without the endpoint's scope", () => token("mcp.narrow"), 403, "lacks the scope mcp"],
  ] as const)("a token %s: %i, nothing listed or run", async (_what, make, status, why) => {
    const t = await make();
    const before = (await readJournal(at.root)).records.length;
    const tool = await toolNameOf(at.state, "fx.main/greet");
    for (const p of [
      { method: "tools/list" },
      { method: "tools/call", params: { name: tool, arguments: { name: "Ada" } } },
    ]) {
      const r = await post({ ...p, token: t });
      expect(r.status).toBe(status);
      expect(r.headers.get("www-authenticate")).toContain(why);
      expect(r.text).not.toContain(tool);
    }
    expect((await readJournal(at.root)).records.length).toBe(before);
  });

  it("a token whose sub and client_id are too long: 401 with an ASCII challenge, never a 500, and nothing run as the client", async () => {
    const before = (await readJournal(at.root)).records.length;
    for (const [claims, named] of [
      [{ sub: "s".repeat(300), client_id: "c".repeat(300) }, "its sub"],
      [{ sub: "s".repeat(300) }, "its sub"],
      [{ jti: "j".repeat(256) }, "its jti"],
    ] as const) {
      const r = await post({ method: "tools/list", token: await op.sign(resource, claims) });
      expect(r.status).toBe(401);
      const challenge = r.headers.get("www-authenticate")!;
      expect(challenge).toMatch(/^Bearer error="invalid_token", [\x20-\x7e]+$/);
      expect(challenge).toContain(named);
      expect(r.json.error.message).toContain(named);
    }
    expect((await readJournal(at.root)).records.length).toBe(before);
    // At the bounds (256, and 252 for jti), each claim is taken as it is.
    const longest = { sub: "s".repeat(256), client_id: "c".repeat(256), jti: "j".repeat(252) };
    const ok = await post({ method: "tools/list", token: await op.sign(resource, longest) });
    expect(ok.status).toBe(200);
  });

  it("answers 403 insufficient_scope for a token without the endpoint's scope", async () => {
    const r = await post({ method: "tools/list", token: await token("mcp.narrow") });
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", error_description="the token lacks the scope mcp"',
    );
  });
});

describe("with a token", () => {
  it("discovers, lists and calls, each POST on its own", async () => {
    const t = await token();
    const discover = await post({ method: "server/discover", token: t });
    expect(discover.status).toBe(200);
    expect(discover.json.result).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
    });
    // Page by page, each page its own POST.
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const listed = await post({
        method: "tools/list",
        token: t,
        ...(cursor && { params: { cursor } }),
      });
      expect(listed.status).toBe(200);
      names.push(...listed.json.result.tools.map((x: { name: string }) => x.name));
      cursor = listed.json.result.nextCursor;
    } while (cursor !== undefined);
    expect(names.length).toBeGreaterThan(40);
    const greet = await toolNameOf(at.state, "fx.main/greet");
    expect(names).toContain(greet);
    const called = await post({
      method: "tools/call",
      params: { name: greet, arguments: { name: "Ada" } },
      token: t,
    });
    expect(called.status).toBe(200);
    expect(called.json.result.structuredContent).toMatchObject({ outcome: "succeeded" });
  });

  it("streams a call's progress, then its answer, when the call asks for progress", async () => {
    const tool = await toolNameOf(at.state, "fx.main/progress");
    const r = await post({
      method: "tools/call",
      params: { name: tool, arguments: {}, _meta: { progressToken: "p1" } },
      token: await token(),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/event-stream");
    expect(r.headers.get("x-accel-buffering")).toBe("no");
    const messages = events(r.text);
    const notes = messages.filter((m) => m.method === "notifications/progress");
    expect(notes.length).toBeGreaterThanOrEqual(2);
    expect(messages.at(-1).id).toBe(1);
    expect(messages.at(-1).result.structuredContent.outcome).toBe("succeeded");
  });

  it("binds each request to its own token: subject, client, jti and the preset its scope picks", async () => {
    const narrow = await token("mcp mcp.narrow", "bob-agent");
    const listed = await post({ method: "tools/list", token: narrow });
    const greet = await toolNameOf(at.state, "fx.main/greet");
    expect(listed.json.result.tools.map((x: { name: string }) => x.name)).toEqual([greet]);
    // A tool of the default preset is no tool of this one, by name or otherwise.
    const sum = await toolNameOf(at.state, "fx.main/sum");
    const denied = await post({
      method: "tools/call",
      params: { name: sum, arguments: { a: 1, b: 2 } },
      token: narrow,
    });
    expect(denied.json.error.message).toBe("Unknown tool");
    // A cursor minted for the default preset's view is stale in this one.
    const first = await post({ method: "tools/list", token: await token() });
    const cursor = first.json.result.nextCursor as string;
    expect(cursor).toMatch(/\./);
    const again = await post({ method: "tools/list", params: { cursor }, token: narrow });
    expect(again.json.error.message).toContain(
      "cursor belongs to another profile revision or visibility",
    );
    const claims = JSON.parse(Buffer.from(narrow.split(".")[1]!, "base64url").toString());
    const called = await post({
      method: "tools/call",
      params: { name: greet, arguments: { name: "Bo" } },
      token: narrow,
    });
    const id = called.json.result.structuredContent.invocationId;
    const start = (await readJournal(at.root)).records.find(
      (r) => r.invocationId === id && r.type === "start",
    );
    expect(start).toMatchObject({
      subject: "bob-agent",
      actor: "bob-agent",
      taskAuthorityRef: `jti:${claims.jti}`,
      preset: "narrow",
      surface: "mcp",
    });
  });

  it("keeps ready processes to the subject whose calls started them: another's first call starts its own", async () => {
    const uptime = await toolNameOf(at.state, "fx.main/uptime");
    // Each agent keeps its token, as a client does until it expires.
    const tokens = { "alice-agent": await token(), "bob-agent": await token("mcp", "bob-agent") };
    /** The age of the call's process and how long the call took, in ms. */
    const call = async (client: "alice-agent" | "bob-agent") => {
      const started = Date.now();
      const r = await post({
        method: "tools/call",
        params: { name: uptime, arguments: {} },
        token: tokens[client],
      });
      const age = Number(r.json.result.structuredContent.commandResult.text);
      return { age, took: Date.now() - started };
    };
    await call("alice-agent");
    await call("alice-agent");
    await new Promise((r) => setTimeout(r, 1_500));
    // Bob's process was started for his call (no older than it, however slow the machine):
    // he cannot tell that Alice just used the tool.
    const bob = await call("bob-agent");
    expect(bob.age).toBeLessThanOrEqual(bob.took);
    // Alice's was started ahead, for her, and waited through the pause.
    const alice = await call("alice-agent");
    expect(alice.age).toBeGreaterThanOrEqual(1_400);
    expect(alice.age).toBeGreaterThan(alice.took);
  });

  it("keeps the token out of the state directory: journal, logs and everything else", async () => {
    const t = await token();
    const tool = await toolNameOf(at.state, "fx.main/noisy");
    await post({ method: "tools/call", params: { name: tool, arguments: {} }, token: t });
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(at.root);
    const signature = t.split(".")[2]!;
    const holding = files.filter((f) => readFileSync(f).includes(signature));
    expect(holding).toEqual([]);
  });

  it("lets the SDK 2.x Streamable HTTP client list and call, with a bearer token", async () => {
    const t = await token();
    const client = new Client(
      { name: "rukh-http", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), {
        authProvider: { token: async () => t },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const sumName = await toolNameOf(at.state, "fx.main/sum");
      const sum = tools.find((x) => x.name === sumName);
      expect(sum).toBeDefined();
      const seen: number[] = [];
      const progress = await client.callTool(
        { name: await toolNameOf(at.state, "fx.main/progress"), arguments: {} },
        { onprogress: (p) => seen.push(p.progress) },
      );
      expect(progress.structuredContent).toMatchObject({ outcome: "succeeded" });
      expect(seen.length).toBeGreaterThanOrEqual(2);
      const r = await client.callTool({ name: sum!.name, arguments: { a: 2, b: 3 } });
      expect(r.structuredContent).toMatchObject({ commandResult: { data: { sum: 5 } } });
    } finally {
      await client.close();
    }
  });
});

describe("streams and limits", () => {
  it("answers 40 concurrent requests with no warning: each one's listener on the host's shutdown signal is its own, not a leak", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      const t = await token();
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, id) => post({ method: "tools/list", id, token: t })),
      );
      for (const a of answers) expect(a.status).toBe(200);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.includes("MaxListeners"))).toEqual([]);
  });

  it("keeps a subscriptions/listen stream open: acknowledged first, then told of a publication", async () => {
    const controller = new AbortController();
    const res = await listenRequest(resource, await token(), "watch", controller.signal);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    let text = "";
    const until = async (what: string) => {
      while (!text.includes(what)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${what}: ${text}`);
        text += Buffer.from(value).toString("utf8");
      }
    };
    await until("notifications/subscriptions/acknowledged");
    expect(events(text)[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "watch" } },
    });
    await at.state.remove("fx.hidden");
    await until("notifications/tools/list_changed");
    controller.abort();
    await reader.cancel().catch(() => {});
  });

  it("holds at most 8 listen streams per subject; the ninth is 429, another subject still gets one", async () => {
    const open = async (t: string, id: number) => {
      const controller = new AbortController();
      const res = await listenRequest(resource, t, id, controller.signal);
      return { status: res.status, close: () => controller.abort() };
    };
    const alice = await token();
    const streams = [];
    for (let i = 0; i < 8; i++) streams.push(await open(alice, i));
    expect(streams.map((s) => s.status)).toEqual(Array(8).fill(200));
    const ninth = await open(alice, 9);
    expect(ninth.status).toBe(429);
    const bob = await open(await token("mcp", "bob-agent"), 10);
    expect(bob.status).toBe(200);
    for (const s of [...streams, bob]) s.close();
    // Closed streams are counted out again.
    await new Promise((r) => setTimeout(r, 200));
    const again = await open(alice, 11);
    expect(again.status).toBe(200);
    again.close();
  });

  it("refuses a request head over its limit, and ends one that is sent too slowly", async () => {
    const big = await post({
      method: "tools/list",
      token: await token(),
      headers: { "x-pad": "x".repeat(20_000) },
    });
    expect(big.status).toBe(431);
    // Half a request, then nothing: the host does not wait past its I/O deadline (2 s).
    const { connect } = await import("node:net");
    const [host, port] = hostHeader.split(":");
    const t0 = Date.now();
    const closed = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), host!, () =>
        socket.write(`POST /mcp HTTP/1.1\r\nHost: ${hostHeader}\r\n`),
      );
      let got = "";
      socket.on("data", (d) => {
        got += d.toString("utf8");
      });
      socket.on("close", () => resolve(got));
    });
    // The 2 s deadline, checked every 250 ms; some slack for a busy machine.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_900);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(closed === "" || closed.startsWith("HTTP/1.1 408")).toBe(true);
  }, 20_000);
});

describe("ending", () => {
  it("cancels a call whose client closes the connection before the answer", async () => {
    const tool = await toolNameOf(at.state, "fx.main/slow");
    const controller = new AbortController();
    const sent = post({
      method: "tools/call",
      params: { name: tool, arguments: { wait_ms: 10_000 } },
      token: await token(),
      signal: controller.signal,
    }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 700));
    controller.abort();
    expect(await sent).toBeInstanceOf(Error);
    // Its one final record says the client cancelled it.
    let final: Wire;
    for (let i = 0; i < 100 && final === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      final = (await readJournal(at.root)).records.findLast(
        (r) => r.type === "final" && r.command === "fx.main/slow",
      );
    }
    expect(final).toMatchObject({ outcome: "cancelled", reason: "client_cancel" });
  });

  it("closes promptly with a stream open, and with one admitted while it closes", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const own = await startIssuer({ resources: [url], scopes: "mcp" });
    const rs = createResourceServer({
      resource: url,
      issuer: own.issuer,
      defaultPreset: "default",
    });
    // A slow check, so that close() can begin while a request is being authenticated.
    const slow = {
      metadata: rs.metadata,
      authenticate: async (h: string | undefined) => {
        await new Promise((r) => setTimeout(r, 400));
        return rs.authenticate(h);
      },
    };
    const h = await serveHttp({
      state: at.state,
      resource: url,
      listen: { port },
      authenticator: slow,
    });
    const t = await own.token("alice-agent", url, "mcp");
    const listen = (id: number) => listenRequest(url, t, id);
    const first = await listen(1);
    expect(first.status).toBe(200);
    const late = listen(2);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await h.close();
    expect(Date.now() - t0).toBeLessThan(3_000);
    // The open stream ended with its final result; the late one was refused.
    expect(await first.text()).toContain('"resultType":"complete"');
    expect((await late).status).toBe(503);
    await own.close();
  });
});

describe("requests that are not what they claim", () => {
  it.each([
    ["no MCP-Protocol-Version", { omit: ["mcp-protocol-version"] }, "MCP-Protocol-Version"],
    [
      "another MCP-Protocol-Version",
      { headers: { "mcp-protocol-version": "2025-11-25" } },
      "MCP-Protocol-Version",
    ],
    ["another Mcp-Method", { headers: { "mcp-method": "tools/call" } }, "Mcp-Method"],
  ])("%s: 400 header mismatch", async (_what, over, named) => {
    const r = await post({ method: "tools/list", token: await token(), ...over });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32020);
    expect(r.json.error.message).toContain(named);
    expect(r.json.id).toBe(1);
  });

  it("a tools/call whose Mcp-Name is another tool: 400, nothing run", async () => {
    const greet = await toolNameOf(at.state, "fx.main/greet");
    const sum = await toolNameOf(at.state, "fx.main/sum");
    const r = await post({
      method: "tools/call",
      params: { name: greet, arguments: { name: "Ada" } },
      headers: { "mcp-name": sum },
      token: await token(),
    });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32020);
  });

  it("a 2026-07-28 request whose body names no version: 400 invalid params, naming it", async () => {
    const r = await post({
      method: "tools/list",
      token: await token(),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.message).toContain("is required in a 2026-07-28 request");
  });

  it("serves only its own path: a query is ignored, any other spelling of the path is 404", async () => {
    const t = await token();
    const statusAt = (path: string) => rawList(t, { path });
    expect(await statusAt("/mcp?via=proxy")).toBe(200);
    expect(await statusAt(`http://${hostHeader}/mcp`)).toBe(200);
    for (const other of ["/mcp/", "/MCP", "/./mcp", "/x/../mcp", "/mcp%2F", "//mcp"])
      expect([other, await statusAt(other)]).toEqual([other, 404]);
  });

  it("holds an absolute-form target to the same path rules as origin-form, and its host to the allowed hosts", async () => {
    const t = await token();
    const at = (target: string, host?: string) => rawTarget(t, target, host);
    expect(await at("/mcp")).toBe(200);
    expect(await at(`http://${hostHeader}/mcp`)).toBe(200);
    expect(await at(`http://${hostHeader}/mcp?via=proxy`)).toBe(200);
    // Any other spelling of the path is 404, as in origin-form: dot segments are not resolved.
    for (const path of ["/x/../mcp", "/./mcp", "/mcp/", "/MCP", "/mcp%2F", "//mcp", ""])
      expect([path, await at(`http://${hostHeader}${path}`)]).toEqual([path, 404]);
    // The target's host is checked as Host is, whatever Host says.
    expect(await at("http://evil.example.com/mcp")).toBe(403);
    // User information has no place in an http(s) target: refused as malformed, never matched.
    expect(await at(`http://user@${hostHeader}/mcp`)).toBe(400);
    expect(await at(`http://evil.example.com/mcp`, "evil.example.com")).toBe(403);
    // A scheme the endpoint does not speak is no target of it.
    expect(await at(`ftp://${hostHeader}/mcp`)).toBe(400);
    expect(await at(`HTTPS://${hostHeader}/mcp`)).toBe(200);
  });

  it("GET and DELETE: 405, POST allowed", async () => {
    for (const method of ["GET", "DELETE"]) {
      const r = await fetch(resource, {
        method,
        headers: { authorization: `Bearer ${await token()}` },
      });
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
    }
  });

  it("refuses bodies that are not JSON, answers it cannot give, and a body over the limit", async () => {
    const t = await token();
    expect(
      (await post({ method: "tools/list", token: t, headers: { "content-type": "text/plain" } }))
        .status,
    ).toBe(415);
    expect(
      (await post({ method: "tools/list", token: t, headers: { accept: "application/json" } }))
        .status,
    ).toBe(406);
    const big = await post({
      method: "tools/list",
      token: t,
      body: `{"pad":"${"x".repeat(1_100_000)}"}`,
    });
    expect(big.status).toBe(413);
  });

  it("refuses a forged Host (DNS rebinding) and a foreign Origin with 403; an allowed Origin passes", async () => {
    const t = await token();
    // fetch sets Host itself: a rebound name is sent as a browser would send it, by hand.
    const rebound = await rawList(t, { host: "evil.example.com" });
    expect(rebound).toBe(403);
    const foreign = await post({
      method: "tools/list",
      token: t,
      headers: { origin: "https://evil.example.com" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.text).not.toContain('tools":[');
    const allowed = await post({
      method: "tools/list",
      token: t,
      headers: { origin: "https://app.acme.test" },
    });
    expect(allowed.status).toBe(200);
  });

  it("lets a page at an allowed origin through its browser's CORS checks, and no other page", async () => {
    const page = "https://app.acme.test";
    // The preflight a browser sends before the page's POST: no credential.
    const preflight = (origin: string) =>
      fetch(resource, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers":
            "authorization,content-type,mcp-method,mcp-name,mcp-protocol-version",
        },
      });
    const ok = await preflight(page);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(page);
    expect(ok.headers.get("access-control-allow-methods")).toBe("POST");
    const allowedHeaders = ok.headers.get("access-control-allow-headers")!.toLowerCase();
    for (const h of [
      "authorization",
      "content-type",
      "mcp-method",
      "mcp-name",
      "mcp-protocol-version",
    ])
      expect(allowedHeaders).toContain(h);
    const foreign = await preflight("https://evil.example.com");
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    // Without an Origin, OPTIONS is no preflight: the method is refused as any other.
    expect((await fetch(resource, { method: "OPTIONS" })).status).toBe(405);

    // The page's own requests: it may read the answer, and a 401's challenge.
    const listed = await post({
      method: "tools/list",
      token: await token(),
      headers: { origin: page },
    });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe(page);
    expect(listed.headers.get("vary")).toBe("Origin");
    const challenged = await post({ method: "tools/list", headers: { origin: page } });
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get("access-control-allow-origin")).toBe(page);
    expect(challenged.headers.get("access-control-expose-headers")).toBe("WWW-Authenticate");
    // A client that is not a page gets no CORS grant at all.
    const plain = await post({ method: "tools/list", token: await token() });
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Origin");
  });
});
