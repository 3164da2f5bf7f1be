import { freePort } from "@rukh/testkit";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHost, serveHttp } from "../../src/index.js";
import { useState, type Wire } from "../_helpers.js";

// Every header the HTTP host sets is a value Node can send: an
// authenticator's challenge (any authenticator, not only @rukh/oauth's) may
// hold text outside printable ASCII, even line breaks, and the answer is
// still its refusal, never a 500 and never a second header. A refusal that
// says when to come back is sent with its Retry-After.
const at = useState();
let host: McpHttpHost;
let url: string;
const challenges: Record<string, string> = {
  "Bearer en-dash":
    'Bearer error="invalid_token", error_description="must be 1\u2013256 characters"',
  "Bearer crlf": 'Bearer error="invalid_token", error_description="x"\r\nSet-Cookie: stolen=1',
  "Bearer latin1": 'Bearer error="invalid_token", error_description="caf\u00e9 \u{1f600}"',
};

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  host = await serveHttp({
    state: at.root,
    resource: url,
    listen: { port },
    authenticator: {
      metadata: {},
      authenticate: async (h) =>
        h === "Bearer busy"
          ? {
              ok: false,
              status: 503,
              challenge: "Bearer",
              message: "try again later",
              retryAfterSeconds: 2,
            }
          : {
              ok: false,
              status: 401,
              challenge: challenges[h ?? ""] ?? "Bearer",
              message: "refused",
            },
    },
  });
}, 30_000);
afterAll(async () => {
  await host?.close();
});

/** A tools/list POST carrying `authorization`. */
const list = (authorization: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      authorization,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: MODERN_META },
    }),
  });

describe("header values an authenticator gives", () => {
  it("an authenticator that cannot check now: 503 with its Retry-After", async () => {
    const res = await list("Bearer busy");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(((await res.json()) as Wire).error.message).toBe("try again later");
  });

  it.each(Object.keys(challenges))(
    "%s: 401 with a printable ASCII challenge on one line",
    async (which) => {
      const res = await list(which);
      expect(res.status).toBe(401);
      const challenge = res.headers.get("www-authenticate")!;
      expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[\x20-\x7e]+$/);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(((await res.json()) as Wire).error.message).toBe("refused");
    },
  );
});
