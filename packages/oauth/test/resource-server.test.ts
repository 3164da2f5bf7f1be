import { createServer, type RequestListener } from "node:http";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerChallenge, createResourceServer, type ResourceServer } from "../src/index.js";

// Tokens from a real authorization server (oidc-provider), each kind a
// resource server must refuse refused as RFC 6750 and RFC 9728 say.
const RESOURCE = "http://127.0.0.1:7411/mcp";
const OTHER = "http://127.0.0.1:7411/other";
let op: TestIssuer;
let twin: TestIssuer;
let rs: ResourceServer;

beforeAll(async () => {
  op = await startIssuer({ resources: [RESOURCE, OTHER], scopes: "mcp mcp.ops mcp.read" });
  // Another issuer holding the same keys: its tokens verify, but name another issuer.
  twin = await startIssuer({ resources: [RESOURCE], scopes: "mcp", keysOf: op });
  rs = createResourceServer({
    resource: RESOURCE,
    issuer: op.issuer,
    requiredScopes: ["mcp"],
    presets: [{ scope: "mcp.ops", preset: "ops" }],
    defaultPreset: "agent",
    jwksCooldownMs: 0,
  });
}, 30_000);
afterAll(async () => {
  await op?.close();
  await twin?.close();
});

const bearer = (t: string) => `Bearer ${t}`;

/** An access token signed with the issuer's own key, with `claims` over an ordinary one's. */
const signedByIssuer = (claims: Record<string, unknown>, typ?: string) =>
  op.sign(RESOURCE, claims, typ);
const METADATA = "http://127.0.0.1:7411/.well-known/oauth-protected-resource/mcp";

/** A resource server whose key set `answer` serves on a loopback port; `close` stops serving it. */
async function keySetBy(answer: RequestListener) {
  const server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  const rs = createResourceServer({
    resource: RESOURCE,
    issuer: op.issuer,
    jwksUri: `http://127.0.0.1:${port}/jwks`,
    defaultPreset: "agent",
  });
  return {
    rs,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe("a valid token", () => {
  it("proves a binding: sub, client, jti, and the preset its scope chooses", async () => {
    const plain = await rs.authenticate(bearer(await op.token("alice-agent", RESOURCE, "mcp")));
    expect(plain).toMatchObject({
      ok: true,
      binding: { subject: "alice-agent", actor: "alice-agent", preset: "agent" },
      scopes: ["mcp"],
    });
    expect(plain.ok && plain.binding.taskAuthorityRef).toMatch(/^jti:[A-Za-z0-9_-]{20,}$/);
    const ops = await rs.authenticate(bearer(await op.token("bob-agent", RESOURCE, "mcp mcp.ops")));
    expect(ops).toMatchObject({ ok: true, binding: { subject: "bob-agent", preset: "ops" } });
  });

  it("publishes its metadata where the challenge points", () => {
    expect(rs.metadataUrl).toBe(METADATA);
    expect(rs.metadata).toEqual({
      resource: RESOURCE,
      authorization_servers: [op.issuer],
      scopes_supported: ["mcp", "mcp.ops"],
      bearer_methods_supported: ["header"],
    });
  });

  it("remembers a verified token, and only until it expires", async () => {
    // An issuer of its own, stopped after the first check: only a remembered token passes then.
    const own = await startIssuer({ resources: [RESOURCE], scopes: "mcp" });
    const strict = createResourceServer({
      resource: RESOURCE,
      issuer: own.issuer,
      defaultPreset: "agent",
      clockToleranceSeconds: 0,
    });
    const brief = bearer(await own.token("brief", RESOURCE, "mcp"));
    const other = bearer(await own.token("alice-agent", RESOURCE, "mcp"));
    expect((await strict.authenticate(brief)).ok).toBe(true);
    await own.close();
    expect((await strict.authenticate(brief)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 3_100));
    const later = await strict.authenticate(brief);
    expect(later).toMatchObject({ ok: false, status: 401 });
    expect(!later.ok && later.message).toContain("it has expired");
    // A token never seen before is checked in full: its key is known, so it verifies.
    expect((await strict.authenticate(other)).ok).toBe(true);
  });

  it("still verifies after the issuer rotates its signing key", async () => {
    const before = op.signingKey;
    const old = await op.token("alice-agent", RESOURCE, "mcp");
    await op.rotate();
    expect(op.signingKey).not.toBe(before);
    const fresh = await op.token("alice-agent", RESOURCE, "mcp");
    expect((await rs.authenticate(bearer(fresh))).ok).toBe(true);
    expect((await rs.authenticate(bearer(old))).ok).toBe(true);
  });
});

describe("every other token is refused, saying why and where to get a good one", () => {
  it("no token: 401 with the metadata and the scope to ask for, no error code", async () => {
    const r = await rs.authenticate(undefined);
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(!r.ok && r.challenge).toBe(`Bearer resource_metadata="${METADATA}", scope="mcp"`);
  });

  it.each([
    ["Basic YWxpY2U6cHc=", "must be one Bearer token"],
    ["Bearer a b", "must be one Bearer token"],
    [`Bearer ${"a".repeat(9_000)}`, "too long"],
  ])("a malformed Authorization header %# is 400 invalid_request", async (header, why) => {
    const r = await rs.authenticate(header);
    expect(r).toMatchObject({ ok: false, status: 400 });
    expect(!r.ok && r.message).toContain(why);
    expect(!r.ok && r.challenge).toContain('error="invalid_request"');
  });

  const cases: [string, () => Promise<string>, string][] = [
    ["expired", () => op.token("late", RESOURCE, "mcp"), "it has expired"],
    ["not yet valid", () => op.token("early", RESOURCE, "mcp"), "it is not valid yet"],
    [
      "for another resource",
      () => op.token("alice-agent", OTHER, "mcp"),
      "issued for another resource",
    ],
    [
      "from another issuer",
      () => twin.token("alice-agent", RESOURCE, "mcp"),
      "issued by another authorization server",
    ],
    [
      "with a forged signature",
      async () => {
        const [h, p, s] = (await op.token("alice-agent", RESOURCE, "mcp")).split(".");
        const flipped = s!.startsWith("A") ? `B${s!.slice(1)}` : `A${s!.slice(1)}`;
        return `${h}.${p}.${flipped}`;
      },
      "its signature does not verify",
    ],
    [
      "with its claims changed",
      async () => {
        const [h, p, s] = (await op.token("alice-agent", RESOURCE, "mcp")).split(".");
        const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
        const forged = Buffer.from(JSON.stringify({ ...claims, scope: "mcp mcp.ops" })).toString(
          "base64url",
        );
        return `${h}.${forged}.${s}`;
      },
      "its signature does not verify",
    ],
    ["that is not a JWT", async () => "bm90LWEtand0", "it is malformed"],
  ];
  it.each(cases)("a token %s: 401 invalid_token", async (_what, make, why) => {
    const r = await rs.authenticate(bearer(await make()));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(!r.ok && r.message).toContain(why);
    expect(!r.ok && r.challenge).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:7411\/\.well-known\/oauth-protected-resource\/mcp", scope="mcp"$/,
    );
  });

  it("a token signed with the issuer's own key but typed JWT, not at+jwt: 401", async () => {
    // What an issuer that does not follow RFC 9068 (or an ID token) looks like.
    const untyped = await signedByIssuer({}, "JWT");
    const r = await rs.authenticate(bearer(untyped));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(!r.ok && r.message).toContain("its typ claim is not acceptable");
    // The same claims typed at+jwt pass: only the type was wrong.
    const typed = await signedByIssuer({});
    expect((await rs.authenticate(bearer(typed))).ok).toBe(true);
  });

  it("a token issued in the future (iat 10 minutes ahead): 401; within the tolerance it passes", async () => {
    const now = Math.floor(Date.now() / 1000);
    const ahead = await signedByIssuer({ iat: now + 600 });
    const r = await rs.authenticate(bearer(ahead));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(!r.ok && r.message).toContain("it was issued in the future");
    expect(!r.ok && r.challenge).toContain('error="invalid_token"');
    // 20 s ahead is inside the 30 s tolerance: a clock a little fast is not a forgery.
    expect(await rs.authenticate(bearer(await signedByIssuer({ iat: now + 20 })))).toMatchObject({
      ok: true,
    });
  });

  it.each([
    ["a sub longer than 256 characters", { sub: "s".repeat(300) }, "its sub"],
    [
      "a sub and a client_id both longer than 256 characters",
      { sub: "s".repeat(300), client_id: "c".repeat(300) },
      "its sub",
    ],
    ["a client_id longer than 256 characters", { client_id: "c".repeat(300) }, "its client_id"],
    [
      "an azp longer than 256 characters",
      { client_id: undefined, azp: "a".repeat(300) },
      "its azp",
    ],
    ["a jti too long for the journal", { jti: "j".repeat(256) }, "its jti"],
  ])(
    "a token with %s: 401, the claim named, never another claim in its place",
    async (_what, claims, named) => {
      const r = await rs.authenticate(bearer(await signedByIssuer(claims)));
      expect(r).toMatchObject({ ok: false, status: 401 });
      expect(!r.ok && r.message).toContain(named);
      // The challenge is a header value: printable ASCII only, whatever the message says.
      expect(!r.ok && r.challenge).toMatch(/^Bearer error="invalid_token", [\x20-\x7e]+$/);
    },
  );

  it("a token whose sub and client_id are 256 characters and jti 252: let in, each as it is", async () => {
    const [sub, client, jti] = ["s".repeat(256), "c".repeat(256), "j".repeat(252)];
    const r = await rs.authenticate(bearer(await signedByIssuer({ sub, client_id: client, jti })));
    expect(r).toMatchObject({
      ok: true,
      binding: { subject: sub, actor: client, taskAuthorityRef: `jti:${jti}` },
    });
  });

  it("writes a challenge's description in the characters RFC 6750 allows, whatever it is given", () => {
    const challenge = bearerChallenge({
      metadataUrl: METADATA,
      scope: ["mcp"],
      error: "invalid_token",
      description: 'its sub must be 1\u2013256 characters: "\u00e9\\\r\nSet-Cookie: x=1',
    });
    expect(challenge).toBe(
      `Bearer error="invalid_token", error_description="its sub must be 1-256 characters: '?/??Set-Cookie: x=1", resource_metadata="${METADATA}", scope="mcp"`,
    );
  });

  it("a token without the required scope: 403 insufficient_scope naming it", async () => {
    const r = await rs.authenticate(bearer(await op.token("alice-agent", RESOURCE, "mcp.read")));
    expect(r).toMatchObject({ ok: false, status: 403, message: "the token lacks the scope mcp" });
    expect(!r.ok && r.challenge).toContain('error="insufficient_scope"');
    expect(!r.ok && r.challenge).toContain('scope="mcp"');
  });

  it("a key set that answers an error: 503, not a verdict on the token", async () => {
    const broken = await keySetBy((_q, r) => r.writeHead(500).end("down"));
    try {
      const r = await broken.rs.authenticate(
        bearer(await op.token("alice-agent", RESOURCE, "mcp")),
      );
      expect(r).toMatchObject({ ok: false, status: 503 });
      expect(!r.ok && r.message).not.toContain("127.0.0.1");
    } finally {
      broken.close();
    }
  });

  it("reads a key set only up to its limit: a larger one is cut off, 503", async () => {
    let sent = 0;
    // A key set that never ends, streamed without a length.
    const endless = await keySetBy((_q, r) => {
      r.writeHead(200, { "content-type": "application/json" });
      r.write('{"keys":[');
      const more = () => {
        if (r.destroyed || sent > 4_000_000) return r.end();
        sent += 65_536;
        r.write(`"${"k".repeat(65_534)}",`, () => setImmediate(more));
      };
      more();
    });
    try {
      const r = await endless.rs.authenticate(
        bearer(await op.token("alice-agent", RESOURCE, "mcp")),
      );
      expect(r).toMatchObject({ ok: false, status: 503 });
      // Cut off after the limit (256 KiB), not read to the end.
      expect(sent).toBeLessThan(1_000_000);
    } finally {
      endless.close();
    }
  });

  it("fetches nothing for what is not a JWT, even when the issuer is down", async () => {
    let fetched = 0;
    const counting = createServer((_q, r) => {
      fetched++;
      r.writeHead(500).end();
    });
    await new Promise<void>((r) => counting.listen(0, "127.0.0.1", () => r()));
    const { port } = counting.address() as { port: number };
    try {
      const rs2 = createResourceServer({
        resource: RESOURCE,
        issuer: `http://127.0.0.1:${port}`,
        defaultPreset: "agent",
      });
      for (let i = 0; i < 5; i++)
        expect(await rs2.authenticate("Bearer x")).toMatchObject({ ok: false, status: 401 });
      expect(fetched).toBe(0);
      // A JWT-shaped one tries discovery once, then waits before trying again.
      for (let i = 0; i < 5; i++)
        expect(await rs2.authenticate("Bearer a.b.c")).toMatchObject({ ok: false, status: 503 });
      expect(fetched).toBe(2);
    } finally {
      counting.close();
    }
  });

  it("an issuer that cannot be reached: 503, not a verdict on the token", async () => {
    const down = createResourceServer({
      resource: RESOURCE,
      issuer: "http://127.0.0.1:9/",
      defaultPreset: "agent",
    });
    const r = await down.authenticate(bearer(await op.token("alice-agent", RESOURCE, "mcp")));
    expect(r).toMatchObject({ ok: false, status: 503 });
  });
});

describe("checks under way", () => {
  it("are bounded: while the key set does not answer, distinct tokens past 1024 are told at once to come back", async () => {
    // A key set that takes the connection and never answers: every check waits on it.
    const silent = await keySetBy(() => {});
    try {
      const answered: { status: number; retry?: number; message: string }[] = [];
      const all = Array.from({ length: 1_100 }, (_, i) =>
        silent.rs.authenticate(`Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.sig${i}`).then((a) => {
          if (!a.ok)
            answered.push({
              status: a.status,
              message: a.message,
              ...(a.retryAfterSeconds !== undefined && { retry: a.retryAfterSeconds }),
            });
        }),
      );
      await new Promise((r) => setTimeout(r, 500));
      // The first 1024 wait for the key set (5 s at most); the other 76 were answered already.
      expect(answered.length).toBe(76);
      for (const a of answered) {
        expect(a).toMatchObject({ status: 503, retry: 5 });
        expect(a.message).toContain("try again in 5 s");
      }
      silent.close();
      await Promise.all(all);
      expect(answered.length).toBe(1_100);
    } finally {
      silent.close();
    }
  }, 20_000);
});
