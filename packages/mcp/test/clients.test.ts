import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, it } from "vitest";
import { serverParams, toolNameOf, useState } from "./_helpers.js";

const at = useState();
let greet: string;
let sum: string;

beforeAll(async () => {
  greet = await toolNameOf(at.state, "fx.main/greet");
  sum = await toolNameOf(at.state, "fx.main/sum");
});

type Era = "modern" | "legacy";

async function connectV2(era: Era): Promise<Client> {
  const client = new Client(
    { name: "rukh-test", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StdioClientTransport(serverParams(at.root)));
  return client;
}

describe.each(["modern", "legacy"] as const)("SDK 2.x client, %s era", (era) => {
  it("lists, calls text and structured tools, and sees input rejections", async () => {
    const client = await connectV2(era);
    try {
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getNegotiatedProtocolVersion()).toBe(
        era === "modern" ? "2026-07-28" : "2025-11-25",
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain(greet);
      const hello = await client.callTool({ name: greet, arguments: { name: "bo" } });
      expect(hello.isError).toBe(false);
      expect(hello.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "hello bo" },
      });
      const total = await client.callTool({ name: sum, arguments: { a: 2, b: 40 } });
      expect(total.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "structured", data: { sum: 42 } },
      });
      const bad = await client.callTool({ name: sum, arguments: { a: 2, b: 40, c: 1 } });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({ outcome: "rejected", reason: "invalid_input" });
      await expect(client.callTool({ name: "missing", arguments: {} })).rejects.toThrow(
        /Unknown tool/,
      );
    } finally {
      await client.close();
    }
  });
});

describe("SDK 2.x client, auto negotiation", () => {
  it("probes with server/discover and settles on 2026-07-28", async () => {
    const client = new Client(
      { name: "rukh-test", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new StdioClientTransport(serverParams(at.root)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const hello = await client.callTool({ name: greet, arguments: { name: "al" } });
      expect(hello.structuredContent).toMatchObject({ outcome: "succeeded" });
    } finally {
      await client.close();
    }
  });
});

describe("SDK 1.x client (legacy)", () => {
  it("negotiates 2025-11-25, lists and calls", async () => {
    const client = new LegacyClient({ name: "rukh-test-v1", version: "1.0.0" });
    await client.connect(new LegacyStdioClientTransport(serverParams(at.root)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain(sum);
      const total = await client.callTool({ name: sum, arguments: { a: 1, b: 2 } });
      expect(total.isError).toBe(false);
      expect(total.structuredContent).toMatchObject({
        commandResult: { kind: "structured", data: { sum: 3 } },
      });
      const failed = await client.callTool({
        name: await toolNameOf(
          new (await import("@rukh/profile")).StateDirectory(at.root),
          "fx.main/fail",
        ),
        arguments: {},
      });
      expect(failed.isError).toBe(true);
      expect(failed.structuredContent).toMatchObject({ outcome: "command_failed" });
    } finally {
      await client.close();
    }
  });
});

describe("list changes reach real clients", () => {
  let n = 0;
  const publish = async () => {
    const { StateDirectory } = await import("@rukh/profile");
    const { ownerConfig } = await import("./_helpers.js");
    await new StateDirectory(at.root).setConfig(
      JSON.stringify(ownerConfig({ endpointNamespace: `acme-clients-${n++}` })),
    );
  };

  it.each(["modern", "legacy"] as const)("SDK 2.x client, %s era", async (era) => {
    let changed!: () => void;
    const seen = new Promise<void>((r) => {
      changed = r;
    });
    const client = new Client(
      { name: "rukh-test", version: "1.0.0" },
      {
        ...(era === "modern" && { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => changed() } },
      },
    );
    await client.connect(new StdioClientTransport(serverParams(at.root)));
    try {
      const sub = era === "modern" ? await client.listen({ toolsListChanged: true }) : undefined;
      await new Promise((r) => setTimeout(r, 300));
      await publish();
      await seen;
      await sub?.close();
    } finally {
      await client.close();
    }
  });

  it("SDK 1.x client", async () => {
    const { ToolListChangedNotificationSchema } = await import(
      "@modelcontextprotocol/sdk/types.js"
    );
    const client = new LegacyClient({ name: "rukh-test-v1", version: "1.0.0" });
    const seen = new Promise<void>((r) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => r()),
    );
    await client.connect(new LegacyStdioClientTransport(serverParams(at.root)));
    try {
      await new Promise((r) => setTimeout(r, 300));
      await publish();
      await seen;
    } finally {
      await client.close();
    }
  });
});
