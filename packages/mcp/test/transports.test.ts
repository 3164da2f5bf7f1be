import { PassThrough } from "node:stream";
import type { HostBinding } from "@rukh/core";
import { freePort } from "@rukh/testkit";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHost, type McpStdioHost, serveHttp, serveStdio } from "../src/index.js";
import {
  fixedTokenAuthenticator,
  onJsonLines,
  toolNameOf,
  useState,
  type Wire,
} from "./_helpers.js";

// The same request, sent over stdio and over HTTP, gets the same answer:
// one protocol object answers both, and the transports only move bytes. The
// table covers every kind of answer: results, each outcome of a call,
// protocol errors, and a result over the response limit.
const at = useState();
const binding: HostBinding = { subject: "s", actor: "a", taskAuthorityRef: "t", preset: "default" };
/** Small enough for a test's result to pass it. */
const RESPONSE_MAX = 64 * 1024;

let stdio: McpStdioHost;
let http: McpHttpHost;
let url: string;
const input = new PassThrough();
const output = new PassThrough();
const replies: Wire[] = [];

beforeAll(async () => {
  onJsonLines(output, (m) => replies.push(m));
  const endpoint = { limits: { responseMaxBytes: RESPONSE_MAX } };
  stdio = await serveStdio({ state: at.root, binding, input, output, endpoint });
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  http = await serveHttp({
    state: at.root,
    resource: url,
    listen: { port },
    endpoint,
    // Every request carries the one binding stdio was launched with.
    authenticator: fixedTokenAuthenticator(binding),
  });
}, 30_000);
afterAll(async () => {
  input.end();
  await stdio?.closed;
  await http?.close();
});

let next = 0;
async function overStdio(method: string, params: object): Promise<Wire> {
  const id = `s${++next}`;
  input.write(
    `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } })}\n`,
  );
  for (let i = 0; i < 1_000; i++) {
    const r = replies.find((m) => m.id === id);
    if (r !== undefined) return { ...r, id: "<id>" };
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`no answer to ${method} over stdio`);
}

async function overHttp(method: string, params: object): Promise<{ status: number; body: Wire }> {
  const id = `h${++next}`;
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: "Bearer t",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof (params as { name?: unknown }).name === "string" && {
        "mcp-name": (params as { name: string }).name,
      }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } }),
  });
  const body = (await res.json()) as Wire;
  return { status: res.status, body: { ...body, id: "<id>" } };
}

/** The answer with what differs between two calls of the same request (their invocation ids) made alike. */
const same = (answer: Wire) =>
  JSON.parse(
    JSON.stringify(answer).replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      "<invocation>",
    ),
  );

describe("one request, over stdio and over HTTP", () => {
  const tool = (identity: string) => toolNameOf(at.state, identity);
  it.each([
    ["a tool list", "tools/list", async () => ({}), 200, "result"],
    ["discovery", "server/discover", async () => ({}), 200, "result"],
    [
      "a call that succeeds",
      "tools/call",
      async () => ({ name: await tool("fx.main/greet"), arguments: { name: "Ada" } }),
      200,
      "result",
    ],
    [
      "a call its command fails",
      "tools/call",
      async () => ({ name: await tool("fx.main/fail"), arguments: {} }),
      200,
      "result",
    ],
    [
      "a call with arguments its schema refuses",
      "tools/call",
      async () => ({ name: await tool("fx.main/greet"), arguments: { name: 7 } }),
      200,
      "result",
    ],
    [
      "a call whose result is over the response limit",
      "tools/call",
      async () => ({ name: await tool("fx.main/big"), arguments: { bytes: RESPONSE_MAX } }),
      500,
      "error",
    ],
    [
      "a call of an unknown tool",
      "tools/call",
      async () => ({ name: "nope__0123", arguments: {} }),
      400,
      "error",
    ],
    ["an unknown method", "tools/nothing", async () => ({}), 404, "error"],
    [
      "continuation input",
      "tools/call",
      async () => ({ name: await tool("fx.main/greet"), arguments: {}, requestState: "x" }),
      400,
      "error",
    ],
  ])("%s", async (_what, method, params, status, kind) => {
    const p = await params();
    const viaStdio = await overStdio(method, p);
    const viaHttp = await overHttp(method, p);
    expect(viaStdio).toHaveProperty(kind);
    expect(same(viaHttp.body)).toEqual(same(viaStdio));
    expect(viaHttp.status).toBe(status);
  });

  it("names the finalized call in the error of a result over the response limit, on both", async () => {
    const p = { name: await tool("fx.main/big"), arguments: { bytes: RESPONSE_MAX } };
    for (const answer of [await overStdio("tools/call", p), (await overHttp("tools/call", p)).body])
      expect(answer.error).toMatchObject({
        code: -32603,
        message: `the response would exceed ${RESPONSE_MAX} bytes`,
        data: { outcome: "succeeded", reason: "completed", invocationId: expect.any(String) },
      });
  });
});
