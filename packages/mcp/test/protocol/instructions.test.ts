import type { HostBinding } from "@rukh/core";
import { connectAnswerBytes } from "@rukh/profile/projection";
import { freePort } from "@rukh/testkit";
import { LEGACY_INITIALIZE, MODERN_META } from "@rukh/testkit/mcp";
import { describe, expect, it } from "vitest";
import { serveHttp } from "../../src/index.js";
import { stdioAnswers, useState, type Wire } from "../_helpers.js";

// The owner's instructions for an endpoint reach the client where each
// protocol era puts them: the initialize result (2025 versions) and the
// server/discover result (2026-07-28), over stdio and HTTP alike.
const at = useState();
const binding: HostBinding = { subject: "s", actor: "a", taskAuthorityRef: "t", preset: "default" };
const INSTRUCTIONS = "Use greet for people; ask before calling fail.";

/** The answers a stdio host with `instructions` gives to `messages`, in order of their ids. */
function answers(instructions: string | undefined, messages: object[]): Promise<Wire[]> {
  return stdioAnswers(
    { state: at.root, binding, ...(instructions !== undefined && { endpoint: { instructions } }) },
    messages,
  );
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: LEGACY_INITIALIZE,
};
const discover = {
  jsonrpc: "2.0",
  id: 2,
  method: "server/discover",
  params: { _meta: MODERN_META },
};

describe("an endpoint's instructions", () => {
  it("are in the initialize result and the server/discover result over stdio", async () => {
    const [init] = await answers(INSTRUCTIONS, [initialize]);
    expect(init!.result.instructions).toBe(INSTRUCTIONS);
    const [disc] = await answers(INSTRUCTIONS, [discover]);
    expect(disc!.result.instructions).toBe(INSTRUCTIONS);
  });

  it("fit the least response limit a publication accepts for them, at their longest", async () => {
    // 2,048 characters of three UTF-8 bytes each, and quotes JSON escapes.
    const longest = `"${"界".repeat(2_046)}"`;
    const limits = { responseMaxBytes: connectAnswerBytes(longest) };
    const [init, disc] = await stdioAnswers(
      { state: at.root, binding, endpoint: { instructions: longest, limits } },
      [initialize, discover],
    );
    expect(init!.error).toBeUndefined();
    expect(init!.result.instructions).toBe(longest);
    expect(disc!.error).toBeUndefined();
    expect(disc!.result.instructions).toBe(longest);
    // Where the limit is smaller, a client could not even connect: why a publication refuses it.
    const [tight] = await stdioAnswers(
      {
        state: at.root,
        binding,
        endpoint: { instructions: longest, limits: { responseMaxBytes: 5_000 } },
      },
      [initialize],
    );
    expect(tight!.error).toBeDefined();
  });

  it("are left out where the owner gave none", async () => {
    const [init] = await answers(undefined, [initialize]);
    const [disc] = await answers(undefined, [discover]);
    expect(init!.result).not.toHaveProperty("instructions");
    expect(disc!.result).not.toHaveProperty("instructions");
  });

  it("are in the server/discover result over HTTP", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const http = await serveHttp({
      state: at.root,
      resource: url,
      listen: { port },
      endpoint: { instructions: INSTRUCTIONS },
      authenticator: { metadata: {}, authenticate: async () => ({ ok: true, binding }) },
    });
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "server/discover",
        },
        body: JSON.stringify(discover),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Wire).result.instructions).toBe(INSTRUCTIONS);
    } finally {
      await http.close();
    }
  });
});
