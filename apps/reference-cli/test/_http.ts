// What the HTTP endpoint suites share: a state directory with an extension
// whose commands report what they can see or take their time, an owner
// configuration with an HTTP endpoint trusting a real issuer, and the built
// CLI serving it as a real process.

import type { ChildProcess } from "node:child_process";
import { request } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export { freePort } from "@rukh/testkit";

import { exposedState, fixturePreset, int, machine, managed } from "@rukh/testkit";
import { spawnCli } from "@rukh/testkit/cli";
import { MODERN_META } from "@rukh/testkit/mcp";

const STRUCTURED = (properties: object) => ({
  kind: "structured",
  schema: {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  },
});

/**
 * A state directory with `fx.see` (`see`: everything its process can see,
 * as one string; `nap`: sleeps `wait_ms` and answers its `tag`) and
 * the endpoint `team` served at `resource`, trusting `issuer`'s tokens with
 * scope `mcp`; scope `mcp.narrow` chooses the preset `narrow` (`see` only),
 * `mcp.sealed` the strict preset `sealed` (`see` only, in the sandbox);
 * `auth` is merged into the endpoint's `auth`; with `napTask`, the
 * descriptor is rukh.extension/3 and `nap` says so of running as a task.
 */
export async function httpState(
  prefix: string,
  resource: string,
  issuer: string,
  more = 0,
  auth: object = {},
  napTask?: "optional" | "required",
) {
  // Each extra command is one more tool, so lists can span pages.
  const extra = Array.from({ length: more }, (_, i) => ({
    id: `c${i}`,
    path: ["c", `c${i}`],
    summary: `Extra command ${i}`,
    inputs: [],
    execute: managed(STRUCTURED({ tag: { type: "string", maxLength: 64 } }), "bin/see.mjs"),
    machine: machine(),
  }));
  return exposedState({
    prefix,
    endpointNamespace: "acme-http",
    presets: {
      default: fixturePreset({ commands: ["fx.see/*"], deadlineMs: 30_000, maxConcurrency: 16 }),
      narrow: fixturePreset({ commands: ["fx.see/see"], deadlineMs: 30_000 }),
      sealed: fixturePreset({
        commands: ["fx.see/see"],
        deadlineMs: 30_000,
        enforcement: "strict",
      }),
    },
    config: {
      mcp: {
        endpoints: {
          team: {
            preset: "default",
            http: {
              resource,
              auth: {
                issuer,
                requiredScopes: ["mcp"],
                presets: [
                  { scope: "mcp.narrow", preset: "narrow" },
                  { scope: "mcp.sealed", preset: "sealed" },
                ],
                ...auth,
              },
            },
          },
          local: { preset: "default" },
        },
      },
    },
    packages: [
      {
        descriptor: {
          format: napTask === undefined ? "rukh.extension/2" : "rukh.extension/3",
          id: "fx.see",
          version: "1.0.0",
          publisher: "acme",
          commands: [
            {
              id: "see",
              path: ["see"],
              summary: "Report everything this process can see",
              inputs: [],
              execute: managed(
                STRUCTURED({ seen: { type: "string", maxLength: 100_000 } }),
                "bin/see.mjs",
              ),
              machine: machine(),
            },
            {
              id: "nap",
              path: ["nap"],
              summary: "Sleep a while",
              inputs: [
                int("wait_ms", { default: 10 }),
                { id: "tag", type: "string", maxLength: 64, summary: "A name for this call" },
              ],
              execute: managed(
                STRUCTURED({ tag: { type: "string", maxLength: 64 } }),
                "bin/see.mjs",
              ),
              machine: machine(),
              ...(napTask !== undefined && { task: napTask }),
            },
            ...extra,
          ],
        },
        programs: {
          "bin/see.mjs": `import { readdirSync, readFileSync } from "node:fs";
import { runCommandProcess, structuredResult } from "@rukh/ipc";
const fds = () => { try { return readdirSync("/proc/self/fd"); } catch { return []; } };
const read = (f) => { try { return readFileSync(f, "utf8"); } catch (e) { return "unreadable: " + e.code; } };
await runCommandProcess({ handlers: {
  "fx.see/see": (ctx) => structuredResult({ seen: JSON.stringify({
    env: process.env, argv: process.argv, cwd: process.cwd(), fds: fds(),
    cmdline: read("/proc/self/cmdline"),
    parent: read("/proc/" + process.ppid + "/environ"),
    context: { ...ctx, signal: undefined, log: undefined },
  }) }),
  "fx.see/nap": async (ctx) => {
    // A step every 100 ms, each reported as progress (a client that asked for it hears them).
    const steps = Math.ceil(ctx.inputs.wait_ms / 100);
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, Math.min(100, ctx.inputs.wait_ms)));
      ctx.progress(i, steps);
    }
    return structuredResult({ tag: ctx.inputs.tag ?? "" });
  },
} });
`,
        },
      },
    ],
  });
}

/**
 * `rukh mcp serve --endpoint team --http <listen>` as a real process (`env`
 * added to its own, `args` after its own), once it listens; what it writes to
 * stdout (its access lines) and stderr is kept.
 */
export async function serveHttpProcess(
  root: string,
  listen: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<{
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawnCli(
    {
      args: ["mcp", "serve", "--endpoint", "team", "--http", listen, ...args],
      stateDir: root,
      env,
    },
    ["ignore", "pipe", "pipe"],
  );
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString("utf8");
  });
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  for (let i = 0; i < 200 && !err.includes(" over HTTP at "); i++) {
    if (child.exitCode !== null) throw new Error(`the server ended: ${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  if (!err.includes(" over HTTP at ")) throw new Error(`the server did not start: ${err}`);
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** An SDK 2.x client on 2026-07-28, connected to `resource` with a bearer `token`. */
export async function connectWithToken(resource: string, token: string): Promise<Client> {
  const client = new Client(
    { name: "team-agent", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), {
      authProvider: { token: async () => token },
    }),
  );
  return client;
}

/** One 2026-07-28 JSON-RPC POST to `url` with a bearer `token`, its routing headers matching its body. */
export function mcpPost(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Response> {
  return mcpRequest({ url, token, method, params });
}

/** What {@link mcpRequest} sends, and the signal that cancels it. */
export interface McpRequest {
  readonly url: string;
  readonly token: string;
  readonly method: string;
  readonly params?: Record<string, unknown>;
  readonly signal?: AbortSignal;
  /** The request's `_meta` (default: no client capabilities). */
  readonly meta?: object;
}

/** {@link mcpPost}, with a signal that aborts the request (and so cancels its call). */
export function mcpRequest({
  url,
  token,
  method,
  params = {},
  signal,
  meta = MODERN_META,
}: McpRequest): Promise<Response> {
  // Mcp-Name: the tool a call names, or the task a tasks/* request is about.
  const named = typeof params.name === "string" ? params.name : params.taskId;
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof named === "string" && { "mcp-name": named }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: meta },
    }),
    ...(signal !== undefined && { signal }),
  });
}

/** What {@link listFrom} got: the status, its Retry-After (seconds, 0 when none) and how long it took. */
export interface ListAnswer {
  readonly status: number;
  readonly retryAfter: number;
  readonly ms: number;
}

/** Where {@link listFrom} sends a tools/list, and as whom. */
export interface ListRequest {
  readonly url: string;
  readonly token: string;
  /** The local address it is sent from (any of 127.0.0.0/8 on Linux): the peer the endpoint sees. */
  readonly from: string;
  /** Its Host header; default the URL's (a proxy in front passes it on). */
  readonly host?: string;
}

/** A tools/list POST as `r` says; a connection error is status -1. */
export function listFrom({ url, token, from, host }: ListRequest): Promise<ListAnswer> {
  const t0 = performance.now();
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: MODERN_META },
  });
  return new Promise((resolve) => {
    const req = request(url, {
      method: "POST",
      localAddress: from,
      agent: false,
      headers: {
        ...(host !== undefined && { host }),
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
    });
    const done = (status: number, retryAfter = 0) =>
      resolve({ status, retryAfter, ms: performance.now() - t0 });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode ?? 0, Number(res.headers["retry-after"] ?? 0)));
    });
    req.on("error", () => done(-1));
    req.end(body);
  });
}
