import { hostname } from "node:os";
import { createResourceServer } from "@rukh/oauth";
import { freePort } from "@rukh/testkit";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHost, type ServeHttpOptions, serveHttp } from "../../src/index.js";
import { toolNameOf, useState, type Wire } from "../_helpers.js";

// The access log of the HTTP host: one JSON line per HTTP request, written
// through pino to the destination the owner gives, saying who asked what in
// which era and what came of it; never the token, never arguments or results.
const at = useState();
let op: TestIssuer;
let greet: string;
let fail: string;

/** A host whose access lines land in `lines`, one string per write. */
interface Logged {
  readonly url: string;
  readonly lines: string[];
  host: McpHttpHost;
}
const logged: Record<"info" | "warn" | "silent", Logged> = {} as never;

/** The fields every access line has, and only those. */
const FIELDS = [
  "durationMs",
  "era",
  "httpMethod",
  "level",
  "method",
  "msg",
  "outcome",
  "replica",
  "status",
  "subject",
  "time",
  "tool",
].sort();

beforeAll(async () => {
  const ports = [await freePort(), await freePort(), await freePort()];
  const urls = ports.map((p) => `http://127.0.0.1:${p}/mcp`);
  op = await startIssuer({ resources: urls, scopes: "mcp" });
  const levels = ["info", "warn", "silent"] as const;
  for (const [i, level] of levels.entries()) {
    const url = urls[i]!;
    const lines: string[] = [];
    const accessLog: NonNullable<ServeHttpOptions["accessLog"]> = {
      level,
      destination: { write: (line: string) => lines.push(line) },
      // The warn host keeps the default replica.
      ...(level !== "warn" && { replica: `replica-${level}` }),
    };
    const host = await serveHttp({
      state: at.state,
      resource: url,
      listen: { port: ports[i]! },
      readyProcesses: 0,
      authenticator: createResourceServer({
        resource: url,
        issuer: op.issuer,
        requiredScopes: ["mcp"],
        defaultPreset: "default",
      }),
      accessLog,
    });
    logged[level] = { url, lines, host };
  }
  greet = await toolNameOf(at.state, "fx.main/greet");
  fail = await toolNameOf(at.state, "fx.main/fail");
}, 30_000);
afterAll(async () => {
  for (const l of Object.values(logged)) await l?.host?.close();
  await op?.close();
});

interface Post {
  readonly method: string;
  readonly params?: Record<string, unknown>;
  readonly token?: string;
  /** A 2025-era request names its version in this header (none for initialize) and has no `_meta`. */
  readonly legacy?: string | true;
  readonly headers?: Record<string, string>;
}

/** One POST to `url`, as a 2026-07-28 client sends it, or a 2025-era one with `legacy`. */
async function post(url: string, p: Post): Promise<{ status: number; text: string }> {
  const params = p.legacy === undefined ? { ...p.params, _meta: MODERN_META } : (p.params ?? {});
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(p.legacy === undefined && {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": p.method,
      ...(typeof params.name === "string" && { "mcp-name": params.name }),
    }),
    ...(typeof p.legacy === "string" && { "mcp-protocol-version": p.legacy }),
    ...(p.token !== undefined && { authorization: `Bearer ${p.token}` }),
    ...p.headers,
  };
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: p.method, params }),
  });
  return { status: res.status, text: await res.text() };
}

/** The lines `l` wrote from `from` on, once there are `count` of them (and, a moment later, no more). */
async function linesOf(l: Logged, from: number, count: number): Promise<string[]> {
  for (let i = 0; i < 200 && l.lines.length < from + count; i++)
    await new Promise((r) => setTimeout(r, 25));
  await new Promise((r) => setTimeout(r, 200));
  return l.lines.slice(from);
}

const parsed = (lines: readonly string[]): Wire[] => lines.map((line) => JSON.parse(line));
const SECRET_ARG = "Ada-argument-7f3c";

describe("the access log of the HTTP host", () => {
  it("writes one JSON line per request: era, method, tool, subject, outcome, status, duration", async () => {
    const l = logged.info;
    const from = l.lines.length;
    const token = await op.token("alice-agent", l.url, "mcp");
    const t0 = Date.now();

    expect((await post(l.url, { method: "tools/list", token })).status).toBe(200);
    const call = await post(l.url, {
      method: "tools/call",
      params: { name: greet, arguments: { name: SECRET_ARG } },
      token,
    });
    expect(call.text).toContain(SECRET_ARG);
    const init = await post(l.url, {
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
      token,
      legacy: true,
    });
    expect(JSON.parse(init.text).result.protocolVersion).toBe("2025-11-25");
    const legacyCall = await post(l.url, {
      method: "tools/call",
      params: { name: greet, arguments: { name: SECRET_ARG } },
      token,
      legacy: "2025-11-25",
    });
    expect(legacyCall.status).toBe(200);
    expect(legacyCall.text).toContain(SECRET_ARG);
    // Refused: no token; a header that says another method (after authentication); not a POST.
    expect((await post(l.url, { method: "tools/list" })).status).toBe(401);
    const mismatch = await post(l.url, {
      method: "tools/list",
      token,
      headers: { "mcp-method": "tools/call" },
    });
    expect(mismatch.status).toBe(400);
    expect((await fetch(l.url)).status).toBe(405);

    const lines = await linesOf(l, from, 7);
    expect(lines).toHaveLength(7);
    // One JSON object a line, each ending its line.
    for (const line of lines) {
      expect(line.endsWith("\n")).toBe(true);
      expect(line.trimEnd()).not.toContain("\n");
    }
    const entries = parsed(lines);
    expect(
      entries.map(({ era, method, tool, subject, outcome, status, httpMethod }) => ({
        era,
        method,
        tool,
        subject,
        outcome,
        status,
        httpMethod,
      })),
    ).toEqual([
      {
        era: "2026-07-28",
        method: "tools/list",
        tool: null,
        subject: "alice-agent",
        outcome: "answered",
        status: 200,
        httpMethod: "POST",
      },
      {
        era: "2026-07-28",
        method: "tools/call",
        tool: greet,
        subject: "alice-agent",
        outcome: "succeeded",
        status: 200,
        httpMethod: "POST",
      },
      {
        era: "2025-11-25",
        method: "initialize",
        tool: null,
        subject: "alice-agent",
        outcome: "answered",
        status: 200,
        httpMethod: "POST",
      },
      {
        era: "2025-11-25",
        method: "tools/call",
        tool: greet,
        subject: "alice-agent",
        outcome: "succeeded",
        status: 200,
        httpMethod: "POST",
      },
      // Before authentication nothing of the body is read: no method, no subject.
      {
        era: null,
        method: null,
        tool: null,
        subject: null,
        outcome: "refused",
        status: 401,
        httpMethod: "POST",
      },
      {
        era: null,
        method: "tools/list",
        tool: null,
        subject: "alice-agent",
        outcome: "refused",
        status: 400,
        httpMethod: "POST",
      },
      {
        era: null,
        method: null,
        tool: null,
        subject: null,
        outcome: "refused",
        status: 405,
        httpMethod: "GET",
      },
    ]);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(FIELDS);
      expect(e.msg).toBe("access");
      expect(e.replica).toBe("replica-info");
      // pino's levels: info 30 for what was answered, warn 40 for what was refused.
      expect(e.level).toBe(e.status >= 400 ? 40 : 30);
      expect(new Date(e.time).toISOString()).toBe(e.time);
      expect(Date.parse(e.time)).toBeGreaterThanOrEqual(t0 - 1_000);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
    // No secret and no payload: the token (whole or any part), the header, the arguments, the result.
    const all = lines.join("");
    for (const part of [token, ...token.split(".")]) expect(all).not.toContain(part);
    expect(all.toLowerCase()).not.toContain("bearer");
    expect(all.toLowerCase()).not.toContain("authorization");
    expect(all).not.toContain(SECRET_ARG);
    expect(all).not.toContain("hello");
  });

  it("keeps a client's words short and visible: no control or hidden character reaches a line", async () => {
    const l = logged.info;
    const from = l.lines.length;
    const token = await op.token("alice-agent", l.url, "mcp");
    // A 2025-era call names its tool in its body only.
    const name = `evil\u009b2J\u001b]8;;\u202e${"x".repeat(400)}`;
    const r = await post(l.url, {
      method: "tools/call",
      params: { name },
      token,
      legacy: "2025-11-25",
    });
    // A 2025-era request's error is its answer, on a 200.
    expect(r.status).toBe(200);
    const [line] = await linesOf(l, from, 1);
    expect(line!.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/u);
    const { tool, outcome } = JSON.parse(line!);
    expect(tool).toBe(`evil\\u{9b}2J\\u{1b}]8;;\\u{202e}${"x".repeat(256 - 13)}…`);
    expect(outcome).toBe("failed");
  });

  it("at warn, writes only what was refused or did not succeed, under the default replica", async () => {
    const l = logged.warn;
    const from = l.lines.length;
    const token = await op.token("alice-agent", l.url, "mcp");
    expect((await post(l.url, { method: "tools/list", token })).status).toBe(200);
    await post(l.url, {
      method: "tools/call",
      params: { name: greet, arguments: { name: "x" } },
      token,
    });
    const failed = await post(l.url, { method: "tools/call", params: { name: fail }, token });
    expect(JSON.parse(failed.text).result.structuredContent.outcome).toBe("command_failed");
    expect((await post(l.url, { method: "tools/list" })).status).toBe(401);

    const entries = parsed(await linesOf(l, from, 2));
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      level: 40,
      method: "tools/call",
      tool: fail,
      subject: "alice-agent",
      outcome: "command_failed",
      status: 200,
      replica: `${hostname()}:${process.pid}`,
    });
    expect(entries[1]).toMatchObject({ level: 40, outcome: "refused", status: 401 });
  });

  it("at silent, writes nothing", async () => {
    const l = logged.silent;
    const token = await op.token("alice-agent", l.url, "mcp");
    expect((await post(l.url, { method: "tools/list", token })).status).toBe(200);
    expect((await post(l.url, { method: "tools/list" })).status).toBe(401);
    expect((await fetch(l.url)).status).toBe(405);
    expect(await linesOf(l, 0, 0)).toEqual([]);
  });

  it("refuses a level it does not know before it listens", async () => {
    await expect(
      serveHttp({
        state: at.state,
        resource: "http://127.0.0.1:1/mcp",
        authenticator: createResourceServer({
          resource: "http://127.0.0.1:1/mcp",
          issuer: op.issuer,
          defaultPreset: "default",
        }),
        accessLog: { level: "debug" as "info" },
      }),
    ).rejects.toMatchObject({ code: "invalid_options" });
  });
});
