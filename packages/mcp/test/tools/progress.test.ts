import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MODERN_META } from "@rukh/testkit/mcp";
import { beforeAll, describe, expect, it } from "vitest";
import { RawSession, serverParams, toolNameOf, useState, type Wire } from "../_helpers.js";

// A command's progress reaches MCP clients that ask for it with a
// progressToken: as notifications/progress, before the result, never after.
const at = useState();
let tool: string;
beforeAll(async () => {
  tool = await toolNameOf(at.state, "fx.main/progress");
});

describe("notifications/progress", () => {
  it("carries the token, rises, comes before the result and never after it; none without a token", async () => {
    const s = new RawSession(at.root);
    try {
      s.send({
        jsonrpc: "2.0",
        id: "p",
        method: "tools/call",
        params: { name: tool, arguments: {}, _meta: { ...MODERN_META, progressToken: "tok-1" } },
      });
      const reply = await s.reply("p");
      expect(reply.result.structuredContent.outcome).toBe("succeeded");
      const progressNotes = () =>
        s.lines.filter((m: Wire) => m.method === "notifications/progress") as Wire[];
      // What had arrived with the reply is all there ever is.
      const withReply = progressNotes().length;
      await new Promise((r) => setTimeout(r, 300));
      const notes = progressNotes();
      expect(notes).toHaveLength(withReply);
      expect(notes.length).toBeGreaterThanOrEqual(2);
      expect(notes.every((n) => n.params.progressToken === "tok-1" && n.params.total === 4)).toBe(
        true,
      );
      const values = notes.map((n) => n.params.progress);
      expect([...values].sort((a, b) => a - b)).toEqual(values);
      expect(new Set(values).size).toBe(values.length);
      expect(notes[0].params.message).toBe("step 1");
      s.lines.length = 0;

      s.call("q", tool, {});
      await s.reply("q");
      await new Promise((r) => setTimeout(r, 300));
      expect(s.lines.filter((m: Wire) => m.method === "notifications/progress")).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it.each(["modern", "legacy"] as const)(
    "reaches the SDK 2.x client's onprogress, %s era",
    async (era) => {
      const client = new Client(
        { name: "rukh-progress", version: "1.0.0" },
        era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
      );
      await client.connect(new StdioClientTransport(serverParams(at.root)));
      try {
        const seen: number[] = [];
        const r = await client.callTool(
          { name: tool, arguments: {} },
          { onprogress: (p) => seen.push(p.progress) },
        );
        expect(r.structuredContent).toMatchObject({ outcome: "succeeded" });
        expect(seen.length).toBeGreaterThanOrEqual(2);
        expect(seen[0]).toBe(1);
      } finally {
        await client.close();
      }
    },
  );

  it("reaches the SDK 1.x client's onprogress", async () => {
    const client = new LegacyClient({ name: "rukh-progress-v1", version: "1.0.0" });
    await client.connect(new LegacyStdioClientTransport(serverParams(at.root)));
    try {
      const seen: number[] = [];
      await client.callTool({ name: tool, arguments: {} }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      expect(seen.length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });
});
