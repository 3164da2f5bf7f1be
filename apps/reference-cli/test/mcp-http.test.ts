import { existsSync } from "node:fs";
import { FIXTURE_AGENT_CONSENT, removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectWithToken, freePort, httpState, mcpPost, serveHttpProcess } from "./_http.js";

// `rukh mcp serve --http` as an owner runs it: a real process, a real
// issuer's tokens, the SDK 2.x Streamable HTTP client; the bearer token
// reaches nothing a command can see.
let op: TestIssuer;
let work: string;
let root: string;
let resource: string;
let server: Awaited<ReturnType<typeof serveHttpProcess>>;
const rukh = (...args: string[]) => runCli({ args, stateDir: root });

beforeAll(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  op = await startIssuer({ resources: [resource], scopes: "mcp mcp.narrow mcp.sealed" });
  ({ work, root } = await httpState("rukh-cli-http-", resource, op.issuer));
  server = await serveHttpProcess(root, `127.0.0.1:${port}`, {}, ["--log-level", "info"]);
}, 60_000);
afterAll(async () => {
  server?.child.kill("SIGKILL");
  await op?.close();
  if (work) removeDir(work);
});

const connect = (token: string) => connectWithToken(resource, token);

describe("rukh mcp serve --http", () => {
  it("says what it serves, where, and whose tokens it takes, and warns of unconfined presets", () => {
    expect(server.stderr()).toContain(
      `rukh mcp: warning: preset default runs commands host-trusted, unconfined, as your user: an agent using it can do whatever your user can, rukh's own administration included (trust, install, presets); served with your consent: ${JSON.stringify(FIXTURE_AGENT_CONSENT)}; over HTTP they could also read this server's memory, where bearer tokens pass`,
    );
    expect(server.stderr()).toContain(
      `rukh mcp: endpoint team over HTTP at http://127.0.0.1:${new URL(resource).port} for ${resource} (preset default; tokens of ${op.issuer})`,
    );
  });

  it("serves the SDK client under each token's own binding", async () => {
    const alice = await connect(await op.token("alice-agent", resource, "mcp"));
    const bob = await connect(await op.token("bob-agent", resource, "mcp mcp.narrow"));
    try {
      const mine = (await alice.listTools()).tools.map((t) => t.name);
      const his = (await bob.listTools()).tools.map((t) => t.name);
      expect(mine).toHaveLength(2);
      expect(his).toHaveLength(1);
      const nap = mine.find((n) => !his.includes(n))!;
      const r = await alice.callTool({ name: nap, arguments: { tag: "a1" } });
      expect(r.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { data: { tag: "a1" } },
      });
      // Bob's preset has no nap: to him it is no tool at all.
      await expect(bob.callTool({ name: nap, arguments: {} })).rejects.toThrow(/Unknown tool/);
    } finally {
      await alice.close();
      await bob.close();
    }
    const runs = rukh("--json", "runs", "list").stdout;
    expect(JSON.parse(runs).result.runs[0]).toMatchObject({
      command: "fx.see/nap",
      subject: "alice-agent",
      actor: "alice-agent",
      preset: "default",
    });
  });

  it("passes the bearer token to nothing a command can see: environment, arguments, inputs, descriptors, parent", async () => {
    const token = await op.token("alice-agent", resource, "mcp");
    const client = await connect(token);
    try {
      const see = (await client.listTools()).tools.find((t) =>
        t.description?.includes("everything"),
      )!;
      const r = await client.callTool({ name: see.name, arguments: {} });
      expect(r.structuredContent).toMatchObject({ outcome: "succeeded" });
      const seen = (r.structuredContent as { commandResult: { data: { seen: string } } })
        .commandResult.data.seen;
      const view = JSON.parse(seen);
      expect(Object.keys(view.env).sort()).toEqual(expect.arrayContaining(["PATH"]));
      // Whole, or any of its three parts: the token is nowhere.
      for (const part of [token, ...token.split(".")]) expect(seen).not.toContain(part);
      expect(seen.toLowerCase()).not.toContain("bearer");
      expect(seen).not.toContain("authorization");
    } finally {
      await client.close();
    }
  });

  it.skipIf(!existsSync("/usr/bin/bwrap"))(
    "in a strict preset, a command cannot even see the server: no parent environment, no server process",
    async () => {
      const token = await op.token("alice-agent", resource, "mcp mcp.sealed");
      const client = await connect(token);
      try {
        const tools = (await client.listTools()).tools;
        expect(tools).toHaveLength(1);
        const [see] = tools;
        const r = await client.callTool({ name: see!.name, arguments: {} });
        expect(r.structuredContent, JSON.stringify(r)).toMatchObject({ outcome: "succeeded" });
        const seen = (r.structuredContent as { commandResult: { data: { seen: string } } })
          .commandResult.data.seen;
        const view = JSON.parse(seen);
        expect(view.parent).not.toContain("RUKH_HOME");
        for (const part of [token, ...token.split(".")]) expect(seen).not.toContain(part);
      } finally {
        await client.close();
      }
    },
  );

  it("writes one access line per request on stdout, JSON, with no token in any", async () => {
    const token = await op.token("alice-agent", resource, "mcp");
    const from = server.stdout().length;
    const listed = await mcpPost(resource, token, "tools/list");
    expect(listed.status).toBe(200);
    await listed.text();
    const refused = await mcpPost(resource, "not-a-token", "tools/list");
    expect(refused.status).toBe(401);
    await refused.text();
    for (let i = 0; i < 100 && server.stdout().slice(from).split("\n").length < 3; i++)
      await new Promise((r) => setTimeout(r, 50));
    const text = server.stdout().slice(from);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    const [ok, no] = lines.map((l) => JSON.parse(l));
    expect(ok).toMatchObject({
      level: 30,
      msg: "access",
      era: "2026-07-28",
      method: "tools/list",
      tool: null,
      subject: "alice-agent",
      outcome: "answered",
      status: 200,
    });
    expect(ok.replica).toMatch(/:\d+$/);
    expect(typeof ok.time).toBe("string");
    expect(typeof ok.durationMs).toBe("number");
    expect(no).toMatchObject({ level: 40, subject: null, outcome: "refused", status: 401 });
    // Every line the server has written on stdout is an access line; none holds a token.
    for (const line of server.stdout().trimEnd().split("\n"))
      expect(JSON.parse(line)).toMatchObject({ msg: "access" });
    for (const part of [token, ...token.split("."), "not-a-token"])
      expect(server.stdout()).not.toContain(part);
    expect(server.stdout().toLowerCase()).not.toContain("bearer");
  });

  it("refuses to serve an endpoint without an http side, and --preset with --http", () => {
    const plain = rukh("mcp", "serve", "--endpoint", "local", "--http", "127.0.0.1:1");
    expect(plain.status).toBe(2);
    expect(plain.stderr).toContain(
      "endpoint local is not served over HTTP: give it /mcp/endpoints/local/http",
    );
    const preset = rukh("mcp", "serve", "--preset", "narrow", "--http", "127.0.0.1:1");
    expect(preset.status).toBe(2);
    expect(preset.stderr).toContain("--preset does not apply to --http");
    const bad = rukh("mcp", "serve", "--endpoint", "team", "--http", "nowhere");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--http "nowhere": expected host:port');
    // Over stdio, stdout is the protocol's: no access line may go there.
    const stdio = rukh("mcp", "serve", "--endpoint", "local", "--log-level", "info");
    expect(stdio.status).toBe(2);
    expect(stdio.stdout).toBe("");
    expect(stdio.stderr).toContain("--log-level applies to --http only");
    const level = rukh("mcp", "serve", "--http", "127.0.0.1:1", "--log-level", "debug");
    expect(level.status).toBe(2);
  });

  it("stops on SIGTERM, cleanly", async () => {
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toContain("rukh mcp: closed");
  });
});
