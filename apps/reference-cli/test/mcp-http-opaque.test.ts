import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { FIXTURE_AGENT_CONSENT, removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { INTROSPECTING_CLIENT, startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { nginxMissing, startNginx } from "@rukh/testkit/nginx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectWithToken,
  freePort,
  httpState,
  type ListAnswer,
  listFrom,
  mcpPost,
  serveHttpProcess,
} from "./_http.js";

// An issuer whose access tokens are opaque (oidc-provider's reference
// tokens): `rukh mcp serve --http` lets each one in only when the issuer's
// introspection endpoint vouches for it, authenticating as its own client
// with a secret it reads from the environment, never from the configuration.
const SECRET_VAR = "ACME_MCP_INTROSPECTION_SECRET";
let op: TestIssuer;
let work: string;
let root: string;
let resource: string;
let port: number;
let server: Awaited<ReturnType<typeof serveHttpProcess>>;
let nginxDir: string | undefined;
let lb: Awaited<ReturnType<typeof startNginx>> | undefined;

beforeAll(async () => {
  port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  op = await startIssuer({
    resources: [resource],
    scopes: "mcp mcp.narrow mcp.sealed",
    format: "opaque",
  });
  ({ work, root } = await httpState("rukh-cli-opaque-", resource, op.issuer, 0, {
    introspection: { clientId: INTROSPECTING_CLIENT.clientId, clientSecretEnv: SECRET_VAR },
  }));
  server = await serveHttpProcess(root, `127.0.0.1:${port}`, {
    [SECRET_VAR]: INTROSPECTING_CLIENT.clientSecret,
  });
}, 60_000);
afterAll(async () => {
  await lb?.stop();
  if (nginxDir) removeDir(nginxDir);
  server?.child.kill("SIGKILL");
  await op?.close();
  if (work) removeDir(work);
});

const connect = (token: string) => connectWithToken(resource, token);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Distinct made-up opaque tokens, each sent with `send`, `lanes` at a time, until `stop()`, which gives the count of each status. */
function madeUpTokens(send: (token: string) => Promise<ListAnswer>, lanes: number) {
  let stopped = false;
  let sent = 0;
  const statuses: Record<number, number> = {};
  const lane = async () => {
    while (!stopped) {
      const r = await send(`made-up-${sent++}-${"z".repeat(40)}`);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
  };
  const running = Array.from({ length: lanes }, lane);
  return {
    async stop() {
      stopped = true;
      await Promise.all(running);
      return statuses;
    },
  };
}

/** nginx with the guide's configuration in front of the server; its URL for the endpoint. */
async function nginxInFront(): Promise<string> {
  const front = await freePort();
  nginxDir = mkdtempSync(join(tmpdir(), "rukh-opaque-nginx-"));
  lb = await startNginx(nginxDir, front, [`127.0.0.1:${port}`]);
  return `http://127.0.0.1:${front}/mcp`;
}

const seenBy = async (client: Client) => {
  const see = (await client.listTools()).tools.find((t) => t.description?.includes("everything"))!;
  const r = await client.callTool({ name: see.name, arguments: {} });
  expect(r.structuredContent, JSON.stringify(r)).toMatchObject({ outcome: "succeeded" });
  return (r.structuredContent as { commandResult: { data: { seen: string } } }).commandResult.data
    .seen;
};

describe("rukh mcp serve --http with opaque tokens", () => {
  it("will not start without its introspection secret, and names the variable", () => {
    const r = runCli({
      args: ["mcp", "serve", "--endpoint", "team", "--http", `127.0.0.1:${port + 1}`],
      stateDir: root,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `its secret variable ${SECRET_VAR} (/mcp/endpoints/team/http/auth/introspection/clientSecretEnv) is not set`,
    );
  });

  it("says it introspects, and as whom, and warns that an unconfined command could read the secret", () => {
    expect(server.stderr()).toContain(
      `rukh mcp: warning: preset default runs commands host-trusted, unconfined, as your user: an agent using it can do whatever your user can, rukh's own administration included (trust, install, presets); served with your consent: ${JSON.stringify(FIXTURE_AGENT_CONSENT)}; over HTTP they could also read this server's memory, where bearer tokens pass, and its environment, where ${SECRET_VAR} is`,
    );
    expect(server.stderr()).toContain(
      `(preset default; tokens of ${op.issuer}, opaque ones introspected as ${INTROSPECTING_CLIENT.clientId})`,
    );
  });

  it("serves the SDK client under the binding the issuer vouches for, and refuses the token once revoked", async () => {
    const token = await op.token("alice-agent", resource, "mcp");
    expect(token).not.toContain(".");
    const client = await connect(token);
    try {
      expect((await client.listTools()).tools).toHaveLength(2);
      const seen = await seenBy(client);
      // Neither the token nor the server's own secret reaches the command.
      expect(seen).not.toContain(token);
      expect(JSON.parse(seen).env).not.toHaveProperty(SECRET_VAR);
    } finally {
      await client.close();
    }
    const runs = runCli({ args: ["--json", "runs", "list"], stateDir: root });
    const [last] = JSON.parse(runs.stdout).result.runs;
    expect(last).toMatchObject({ subject: "alice-agent", actor: "alice-agent", preset: "default" });

    // Revoked at the issuer: refused once the remembered answer (30 s) is
    // gone; a fresh token of the same client, never asked about, is refused at once.
    const fresh = await op.token("alice-agent", resource, "mcp");
    await op.revoke("alice-agent", fresh);
    const res = await mcpPost(resource, fresh, "tools/list");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it.skipIf(!existsSync("/usr/bin/bwrap"))(
    "in a strict preset, a command sees neither the token nor the secret, in the server's environment or anywhere",
    async () => {
      const token = await op.token("alice-agent", resource, "mcp mcp.sealed");
      const client = await connect(token);
      try {
        const seen = await seenBy(client);
        expect(seen).not.toContain(token);
        expect(seen).not.toContain(INTROSPECTING_CLIENT.clientSecret);
        expect(seen).not.toContain(SECRET_VAR);
      } finally {
        await client.close();
      }
    },
  );

  it.each(["straight", "through nginx"])(
    "shares the issuer's questions by peer, %s: one address's flood of made-up tokens keeps out neither a user let in before nor a new one from another address",
    async (path) => {
      const nginx = path === "through nginx";
      if (nginx && nginxMissing() !== undefined) return;
      const front = nginx ? await nginxInFront() : resource;
      // Through nginx, the replica sees every request come from loopback, and each client's address in X-Forwarded-For.
      const list = (token: string, from: string) =>
        listFrom({ url: front, token, from, host: new URL(resource).host });
      const known = await op.token("alice-agent", resource, "mcp");
      expect((await list(known, "127.0.0.1")).status).toBe(200);
      const flood = madeUpTokens((token) => list(token, "127.0.0.2"), 32);
      await sleep(1_000);
      const during = [];
      for (let i = 0; i < 10; i++) during.push(await list(known, "127.0.0.1"));
      expect(during.map((a) => a.status)).toEqual(Array(10).fill(200));
      // A token never seen before, its client coming back as Retry-After says.
      const fresh = await op.token("bob-agent", resource, "mcp");
      const t0 = Date.now();
      let got = await list(fresh, "127.0.0.3");
      while (got.status === 503 && Date.now() - t0 < 15_000) {
        await sleep(got.retryAfter * 1_000);
        got = await list(fresh, "127.0.0.3");
      }
      const waited = Date.now() - t0;
      const statuses = await flood.stop();
      expect(got.status).toBe(200);
      expect(waited).toBeLessThan(3_000);
      // The flood was held to the bound: none let in, most told to come back.
      expect(statuses[200]).toBeUndefined();
      expect(statuses[503]).toBeGreaterThan(statuses[401] ?? 0);
    },
    60_000,
  );

  it("keeps the token and the secret out of the state directory", () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const f = join(d, n);
        if (statSync(f).isDirectory()) walk(f);
        else files.push(f);
      }
    };
    walk(root);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files)
      expect([f, readFileSync(f, "latin1").includes(INTROSPECTING_CLIENT.clientSecret)]).toEqual([
        f,
        false,
      ]);
  });
});
