import { MODERN_META } from "@rukh/testkit/mcp";
import { describe, expect, it } from "vitest";
import { hostSettings } from "../../src/hosting/index.js";
import type { HostTools } from "../../src/protocol/_dispatch.js";
import { createDispatcher, type Request } from "../../src/protocol/_dispatch.js";
import { RpcError } from "../../src/protocol/_rpc.js";
import { ListWatcher } from "../../src/tools/_watch.js";

const MODERN = { _meta: MODERN_META };
const serverInfo = { name: "t", version: "1" };

function dispatcher() {
  const calls: string[] = [];
  const tools: HostTools = {
    list: async (era) => {
      calls.push(`list/${era}`);
      return {};
    },
    call: async (era) => {
      calls.push(`call/${era}`);
      return {};
    },
    task: async (era, method) => {
      calls.push(`${method}/${era}`);
      return {};
    },
  };
  const sent: object[] = [];
  const watcher = new ListWatcher({
    state: { activeRevisionId: async () => null } as never,
    send: (m) => sent.push(m),
    complete: (r) => r,
    serverInfo,
    warn: () => {},
  });
  const d = createDispatcher({
    tools,
    watcher,
    settings: hostSettings({ state: "/nowhere", serverInfo }),
    info: () => {},
  });
  return { d, calls, sent, watcher };
}

const request = (method: string, params?: object, id: string | number = 1) =>
  ({ kind: "request", id, method, ...(params !== undefined && { params }) }) as Request;
const signal = new AbortController().signal;

async function code(p: Promise<unknown>): Promise<number | "ok"> {
  return p.then(
    () => "ok" as const,
    (e) => {
      if (e instanceof RpcError) return e.code;
      throw e;
    },
  );
}

describe("the method tables of the two eras", () => {
  it.each([
    ["initialize", MODERN, -32601],
    ["ping", MODERN, -32601],
    ["logging/setLevel", MODERN, -32601],
    ["server/discover", MODERN, "ok"],
    ["tools/list", MODERN, "ok"],
    ["tools/call", MODERN, "ok"],
  ] as const)("2026-07-28: %s → %s", async (method, params, expected) => {
    expect(await code(dispatcher().d.handle(request(method, params), signal))).toBe(expected);
  });

  it("2025 era: ping and initialize, then the tools; no discover or listen", async () => {
    const { d, calls } = dispatcher();
    expect(await code(d.handle(request("ping"), signal))).toBe("ok");
    expect(d.initialized).toBe(false);
    expect(await code(d.handle(request("tools/list", {}), signal))).toBe(-32602);
    const init = { protocolVersion: "2025-11-25", capabilities: {} };
    expect(await code(d.handle(request("initialize", init), signal))).toBe("ok");
    expect(d.initialized).toBe(true);
    expect(await code(d.handle(request("initialize", init), signal))).toBe(-32600);
    expect(await code(d.handle(request("tools/list", {}), signal))).toBe("ok");
    expect(await code(d.handle(request("server/discover", {}), signal))).toBe(-32601);
    expect(await code(d.handle(request("subscriptions/listen", {}), signal))).toBe(-32601);
    expect(calls).toEqual(["list/legacy"]);
  });

  it("refuses continuation input in either era", async () => {
    const { d } = dispatcher();
    const params = { ...MODERN, requestState: "x" };
    expect(await code(d.handle(request("tools/call", params), signal))).toBe(-32602);
  });

  it("treats a method name that is an Object.prototype member as unknown", async () => {
    const { d } = dispatcher();
    expect(await code(d.handle(request("constructor", MODERN), signal))).toBe(-32601);
    expect(await code(d.handle(request("__proto__", MODERN), signal))).toBe(-32601);
  });
});

describe("subscriptions/listen", () => {
  it("acknowledges, stays open until cancelled, and ends with the final result", async () => {
    const { d, sent } = dispatcher();
    const ac = new AbortController();
    const stream = d.handle(
      request(
        "subscriptions/listen",
        { ...MODERN, notifications: { toolsListChanged: true } },
        "s",
      ),
      ac.signal,
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(sent[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    let settled = false;
    void stream.then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    ac.abort();
    expect(await stream).toMatchObject({
      _meta: { "io.modelcontextprotocol/subscriptionId": "s" },
    });
  });

  it("ends at once when nothing it can deliver is asked for, and every stream when the host stops", async () => {
    const { d, watcher } = dispatcher();
    await expect(
      d.handle(request("subscriptions/listen", { ...MODERN, notifications: {} }, "n"), signal),
    ).resolves.toBeDefined();
    const open = d.handle(
      request(
        "subscriptions/listen",
        { ...MODERN, notifications: { toolsListChanged: true } },
        "o",
      ),
      signal,
    );
    await new Promise((r) => setTimeout(r, 20));
    watcher.stop();
    await expect(open).resolves.toBeDefined();
  });
});
