import { createServer } from "node:http";
import { INTROSPECTING_CLIENT, startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResourceServer, type ResourceServer } from "../src/index.js";

// Opaque tokens from a real authorization server (oidc-provider issuing
// reference tokens), let in only when its introspection endpoint (RFC 7662)
// says they are active, for this resource, unexpired and scoped; JWTs from
// the same kind of issuer are still verified locally.
const RESOURCE = "http://127.0.0.1:7412/mcp";
const OTHER = "http://127.0.0.1:7412/other";
let op: TestIssuer;
let rs: ResourceServer;

const bearer = (t: string) => `Bearer ${t}`;
const server = (cacheSeconds: number, secret: string = INTROSPECTING_CLIENT.clientSecret) =>
  createResourceServer({
    resource: RESOURCE,
    issuer: op.issuer,
    requiredScopes: ["mcp"],
    presets: [{ scope: "mcp.ops", preset: "ops" }],
    defaultPreset: "agent",
    introspection: { clientId: INTROSPECTING_CLIENT.clientId, clientSecret: secret, cacheSeconds },
  });

/**
 * A resource server asking a stand-in introspection endpoint, which answers
 * each request with `answer()` after `delayMs`; `asked` counts the requests.
 */
async function standIn(answer: () => string, delayMs = 0) {
  const state = { asked: 0 };
  const server = createServer((q, r) => {
    state.asked++;
    q.resume();
    setTimeout(
      () => r.writeHead(200, { "content-type": "application/json" }).end(answer()),
      delayMs,
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  const rs = createResourceServer({
    resource: RESOURCE,
    issuer: op.issuer,
    defaultPreset: "agent",
    introspection: {
      endpoint: `http://127.0.0.1:${port}/introspect`,
      ...INTROSPECTING_CLIENT,
      cacheSeconds: 0,
    },
  });
  return { rs, state, close: () => server.close() };
}

beforeAll(async () => {
  op = await startIssuer({ resources: [RESOURCE, OTHER], scopes: "mcp mcp.ops", format: "opaque" });
  rs = server(0);
}, 30_000);
afterAll(async () => {
  await op?.close();
});

describe("an opaque token the issuer vouches for", () => {
  it("proves a binding: the client as subject and actor, a digest for the journal, the preset its scope chooses", async () => {
    const token = await op.token("alice-agent", RESOURCE, "mcp");
    // Opaque: nothing in it to read.
    expect(token).not.toContain(".");
    const r = await rs.authenticate(bearer(token));
    expect(r).toMatchObject({
      ok: true,
      binding: { subject: "alice-agent", actor: "alice-agent", preset: "agent" },
      scopes: ["mcp"],
    });
    // The journal names the grant by a digest, never by the token itself.
    expect(r.ok && r.binding.taskAuthorityRef).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(JSON.stringify(r)).not.toContain(token);
    const ops = await rs.authenticate(bearer(await op.token("bob-agent", RESOURCE, "mcp mcp.ops")));
    expect(ops).toMatchObject({ ok: true, binding: { subject: "bob-agent", preset: "ops" } });
  });

  it("is refused once revoked; a remembered answer lasts only its cache time", async () => {
    const remembering = server(60);
    const token = await op.token("alice-agent", RESOURCE, "mcp");
    expect(await rs.authenticate(bearer(token))).toMatchObject({ ok: true });
    expect(await remembering.authenticate(bearer(token))).toMatchObject({ ok: true });
    await op.revoke("alice-agent", token);
    const r = await rs.authenticate(bearer(token));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(!r.ok && r.challenge).toContain('error="invalid_token"');
    expect(!r.ok && r.message).toContain("not active");
    // Asked a moment ago, the answer is still trusted for its cache time (60 s here).
    expect(await remembering.authenticate(bearer(token))).toMatchObject({ ok: true });
  });

  it("is refused once expired, though it was let in before", async () => {
    const token = await op.token("brief", RESOURCE, "mcp");
    expect(await rs.authenticate(bearer(token))).toMatchObject({ ok: true });
    // Past its lifetime (2 s), the issuer calls it inactive.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await rs.authenticate(bearer(token))).toMatchObject({ ok: false, status: 401 });
  });
});

describe("a flood of distinct garbage tokens", () => {
  it("costs the issuer a bounded number of questions, and a user it let in before is still served", async () => {
    // No answer is remembered (cacheSeconds 0): every request of a known token asks again.
    const rs = server(0);
    const known = await op.token("alice-agent", RESOURCE, "mcp");
    expect(await rs.authenticate(bearer(known))).toMatchObject({ ok: true });
    const before = op.introspections;
    const garbage = Array.from({ length: 150 }, (_, i) => `garbage-${i}-${"x".repeat(40)}`);
    const flood = garbage.map((g) => rs.authenticate(bearer(g)));
    // Asked while the flood is under way, the known user's token is still let in.
    const during = await rs.authenticate(bearer(known));
    expect(during).toMatchObject({ ok: true, binding: { subject: "alice-agent" } });
    const answers = await Promise.all(flood);
    const after = op.introspections;
    const asked = after.asked - before.asked;
    // Each question carried the resource server's client secret: the bound is what spares it.
    expect(after.asGateway - before.asGateway).toBe(asked);
    // 4 in flight and 16 waiting for the flood, and the known user's own question.
    expect(asked).toBeGreaterThan(1);
    expect(asked).toBeLessThanOrEqual(21);
    // No garbage is let in: the issuer said no (401), or was not asked (503, with when to retry).
    const statuses = answers.map((a) => (a.ok ? 200 : a.status));
    expect(statuses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 401).length).toBe(asked - 1);
    const busy = answers.filter((a) => !a.ok && a.status === 503);
    expect(busy.length).toBe(150 - (asked - 1));
    for (const b of busy) {
      expect(!b.ok && b.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(!b.ok && b.message).toContain("try again");
    }

    // The same garbage again: what the issuer refused is refused without asking it again.
    const refused = garbage.filter((_, i) => statuses[i] === 401);
    const again = await Promise.all(refused.map((g) => rs.authenticate(bearer(g))));
    expect(again.every((a) => !a.ok && a.status === 401)).toBe(true);
    expect(op.introspections.asked).toBe(after.asked);

    // A token never seen before is served once the flood is over, its client waiting as told.
    const fresh = await op.token("bob-agent", RESOURCE, "mcp");
    let r = await rs.authenticate(bearer(fresh));
    for (let i = 0; i < 10 && !r.ok && r.status === 503; i++) {
      await new Promise((w) =>
        setTimeout(w, (!r.ok && r.retryAfterSeconds ? r.retryAfterSeconds : 1) * 1_000),
      );
      r = await rs.authenticate(bearer(fresh));
    }
    expect(r).toMatchObject({ ok: true, binding: { subject: "bob-agent" } });
  }, 30_000);
});

describe("what a flood leaves remembered", () => {
  it("a user let in before: 2,000 distinct made-up tokens, opaque and JWT-shaped, and real ones for another resource push it out of no memory", async () => {
    const rs = server(60);
    const known = await op.token("alice-agent", RESOURCE, "mcp");
    expect(await rs.authenticate(bearer(known))).toMatchObject({ ok: true });
    const foreign = await Promise.all(
      Array.from({ length: 10 }, () => op.token("bob-agent", OTHER, "mcp")),
    );
    // The real ones first: they get the issuer's first questions, the rest mostly "try again".
    const flood = [
      ...foreign,
      ...Array.from({ length: 2_000 }, (_, i) =>
        i % 2 === 0 ? `made-up-${i}-${"w".repeat(40)}` : `eyJhbGciOiJSUzI1NiJ9.e30.m${i}`,
      ),
    ].map((t) => rs.authenticate(bearer(t)));
    const answers = await Promise.all(flood);
    expect(answers.filter((a) => a.ok)).toEqual([]);
    const refusedForeign = answers.slice(0, 10);
    expect(refusedForeign.map((a) => !a.ok && a.status)).toEqual(Array(10).fill(401));
    for (const a of refusedForeign) expect(!a.ok && a.message).toContain("another resource");
    // Tokens refused are never remembered as let in: the user's next request asks nothing.
    const before = op.introspections.asked;
    expect(await rs.authenticate(bearer(known))).toMatchObject({ ok: true });
    expect(op.introspections.asked).toBe(before);
  }, 30_000);
});

describe("a flood from one peer", () => {
  it("keeps out no other peer: a token never seen before, sent during the flood from another address, is let in at once", async () => {
    const rs = server(0);
    const garbage = Array.from({ length: 150 }, (_, i) => `flood-${i}-${"y".repeat(40)}`);
    const flood = garbage.map((g) => rs.authenticate(bearer(g), "203.0.113.7"));
    const fresh = await op.token("bob-agent", RESOURCE, "mcp");
    const r = await rs.authenticate(bearer(fresh), "198.51.100.20");
    expect(r).toMatchObject({ ok: true, binding: { subject: "bob-agent" } });
    const statuses = (await Promise.all(flood)).map((a) => (a.ok ? 200 : a.status));
    // The flood got what it gets without another peer there: a verdict on some, "try again" for the rest.
    expect(statuses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(100);
  }, 30_000);
});

describe("every other opaque token is refused", () => {
  it("one the issuer never issued: 401 invalid_token", async () => {
    const r = await rs.authenticate(bearer("nOtAtOkEnThEiSsUeRkNoWs0123456789abcdefghij"));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(!r.ok && r.challenge).toContain('error="invalid_token"');
  });

  it("one issued for another resource: 401, naming why", async () => {
    const r = await rs.authenticate(bearer(await op.token("alice-agent", OTHER, "mcp")));
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(!r.ok && r.message).toContain("another resource");
  });

  it("one without the required scope: 403 insufficient_scope", async () => {
    const r = await rs.authenticate(bearer(await op.token("alice-agent", RESOURCE, "mcp.ops")));
    expect(r).toMatchObject({ ok: false, status: 403 });
    expect(!r.ok && r.challenge).toContain('error="insufficient_scope"');
  });

  it("any, while the resource server's own client secret is wrong: 503, not a verdict on the token", async () => {
    const misconfigured = server(0, "not-the-secret");
    const r = await misconfigured.authenticate(
      bearer(await op.token("alice-agent", RESOURCE, "mcp")),
    );
    expect(r).toMatchObject({ ok: false, status: 503 });
  });

  it("any, while the introspection endpoint answers what is not an answer: 503", async () => {
    const answers = ["not json", "[1]", '{"active":"yes"}'];
    let next = 0;
    const odd = await standIn(() => answers[next++]!);
    try {
      for (const _ of answers)
        expect(await odd.rs.authenticate(bearer("opaque-token-value"))).toMatchObject({
          ok: false,
          status: 503,
        });
    } finally {
      odd.close();
    }
  });

  it("any answer that grants too little: an audience, expiry, bearer use and issuer are all required", async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { active: true, scope: "mcp", client_id: "c", aud: RESOURCE, exp: now + 300 };
    const cases: [string, Record<string, unknown>, string][] = [
      ["no audience", { ...base, aud: undefined }, "another resource"],
      ["no expiry", { ...base, exp: undefined }, "no expiry"],
      ["expired", { ...base, exp: now - 3_600 }, "expired"],
      ["not yet valid", { ...base, nbf: now + 3_600 }, "not valid yet"],
      ["issued in the future", { ...base, iat: now + 600 }, "issued in the future"],
      [
        "another issuer",
        { ...base, iss: "https://elsewhere.test" },
        "another authorization server",
      ],
      ["a DPoP token", { ...base, token_type: "DPoP" }, "not a bearer token"],
      ["a sub that is not a name", { ...base, sub: 42 }, "its sub"],
      ["a sub longer than 256 characters", { ...base, sub: "s".repeat(300) }, "its sub"],
      [
        "a client_id longer than 256 characters",
        { ...base, client_id: "c".repeat(300) },
        "its client_id",
      ],
      ["bound to a key", { ...base, cnf: { jkt: "abc" } }, "bound to a key"],
    ];
    let answer: Record<string, unknown> = base;
    const fake = await standIn(() => JSON.stringify(answer));
    try {
      expect(await fake.rs.authenticate(bearer("opaque-token-value"))).toMatchObject({ ok: true });
      // Issued 20 s ahead is inside the 30 s tolerance.
      answer = { ...base, iat: now + 20 };
      expect(await fake.rs.authenticate(bearer("opaque-token-value"))).toMatchObject({ ok: true });
      for (const [what, a, why] of cases) {
        answer = a;
        // A token of its own for each answer: a refusal is remembered for the token it was about.
        const r = await fake.rs.authenticate(bearer(`opaque-token-${what.replace(/\W/g, "-")}`));
        expect([what, r.ok, !r.ok && r.status]).toEqual([what, false, 401]);
        expect(!r.ok && r.message).toContain(why);
      }
    } finally {
      fake.close();
    }
  });

  it("asks the issuer once for requests that carry the same token at once", async () => {
    const now = Math.floor(Date.now() / 1000);
    const active = { active: true, scope: "mcp", client_id: "c", aud: RESOURCE, exp: now + 300 };
    const slow = await standIn(() => JSON.stringify(active), 100);
    try {
      const all = await Promise.all(
        Array.from({ length: 20 }, () => slow.rs.authenticate(bearer("the-same-opaque-token"))),
      );
      expect(all.every((a) => a.ok)).toBe(true);
      expect(slow.state.asked).toBe(1);
    } finally {
      slow.close();
    }
  });

  it("refuses options that cannot work, naming the option", () => {
    const make = (introspection: Record<string, unknown>) => () =>
      createResourceServer({
        resource: RESOURCE,
        issuer: op.issuer,
        defaultPreset: "agent",
        introspection: { ...INTROSPECTING_CLIENT, ...introspection } as never,
      });
    expect(make({ clientId: "" })).toThrow(/introspection\.clientId/);
    expect(make({ clientSecret: "" })).toThrow(/introspection\.clientSecret/);
    expect(make({ endpoint: "http://login.acme.test/introspect" })).toThrow(/must be https/);
    expect(make({ cacheSeconds: 301 })).toThrow(/cacheSeconds/);
  });
});
