import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawSession, useState, type Wire } from "../_helpers.js";

const at = useState();
let session: RawSession;

beforeAll(() => {
  session = new RawSession(at.root);
});

afterAll(async () => {
  await session?.close();
});

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;
const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

// Each case: raw bytes of one line, the error code and the id the answer must carry.
const CASES: [string, Buffer | string, number, string | number | null][] = [
  [
    "invalid UTF-8",
    Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}'),
    ]),
    -32700,
    null,
  ],
  ["duplicate key", `{"jsonrpc":"2.0","id":2,"method":"ping","method":"ping"}`, -32700, 2],
  ["duplicate id", `{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}`, -32700, null],
  [
    "lone surrogate",
    `{"jsonrpc":"2.0","id":"s","method":"ping","params":{"x":"\\ud800"}}`,
    -32700,
    "s",
  ],
  ["invalid number", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":01}}`, -32700, null],
  ["not JSON", "hello there", -32700, null],
  ["trailing content", `{"jsonrpc":"2.0","id":6,"method":"ping"} {}`, -32700, null],
  ["depth 33", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":${deep(31)}}}`, -32600, 7],
  [
    "4,097 elements",
    `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":[${Array(4094).fill(0).join(",")}]}}`,
    -32600,
    8,
  ],
  ["a batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, -32600, null],
  ["no jsonrpc member", `{"id":10,"method":"ping"}`, -32600, 10],
  ["unknown member", `{"jsonrpc":"2.0","id":11,"method":"ping","extra":1}`, -32600, 11],
  ["fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, null],
  ["null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, null],
  ["params not an object", `{"jsonrpc":"2.0","id":12,"method":"ping","params":[1]}`, -32600, 12],
  [
    "unknown method",
    `{"jsonrpc":"2.0","id":13,"method":"resources/list","params":{${meta}}}`,
    -32601,
    13,
  ],
  ["no protocol version", `{"jsonrpc":"2.0","id":14,"method":"tools/list"}`, -32602, 14],
  [
    "no client capabilities",
    `{"jsonrpc":"2.0","id":15,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
    -32602,
    15,
  ],
  [
    "continuation state",
    `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"x","requestState":"abc",${meta}}}`,
    -32602,
    16,
  ],
  [
    "continuation responses",
    `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"x","inputResponses":{},${meta}}}`,
    -32602,
    17,
  ],
  [
    "tampered cursor",
    `{"jsonrpc":"2.0","id":18,"method":"tools/list","params":{"cursor":"abc.${"A".repeat(43)}",${meta}}}`,
    -32602,
    18,
  ],
  [
    "non-string tool name",
    `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":1,${meta}}}`,
    -32602,
    19,
  ],
  [
    "modern initialize",
    `{"jsonrpc":"2.0","id":20,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},${meta}}}`,
    -32601,
    20,
  ],
];

describe("each malformed or refused line is answered and the server keeps serving", () => {
  it.each(CASES)("%s", async (_name, bytes, code, id) => {
    session.write(Buffer.concat([Buffer.from(bytes), Buffer.from("\n")]));
    const answer = await session.next((m) => m.error !== undefined);
    expect(answer.error.code).toBe(code);
    expect(answer.id).toBe(id);
    await session.ping();
  });

  it("answers an unsupported protocol version with -32022 and the supported list", async () => {
    session.send({
      jsonrpc: "2.0",
      id: "v",
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2099-01-01",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    const r = await session.reply("v");
    expect(r.error).toMatchObject({
      code: -32022,
      data: { supported: ["2026-07-28"], requested: "2099-01-01" },
    });
    await session.ping();
  });

  it.each([
    ["a number", 20260728],
    ["null", null],
  ])(
    "answers a malformed protocol version (%s) with -32602, not -32022",
    async (_name, version) => {
      session.send({
        jsonrpc: "2.0",
        id: "mv",
        method: "tools/list",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      });
      const r = await session.reply("mv");
      expect(r.error.code).toBe(-32602);
      expect(r.error.message).toMatch(/protocolVersion/);
    },
  );

  it("answers a version string that is not a date as an unsupported version, echoing it", async () => {
    // The official conformance suite asks with "v999.0.0" and expects -32022.
    session.send({
      jsonrpc: "2.0",
      id: "vs",
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "latest",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    const r = await session.reply("vs");
    expect(r.error.code).toBe(-32022);
    expect(r.error.data).toEqual({ supported: ["2026-07-28"], requested: "latest" });
  });

  it("answers ping in the 2026-07-28 era with -32601: that era has no ping", async () => {
    const r = await session.request("mp", "ping");
    expect(r.error).toEqual({ code: -32601, message: "Method not found: ping" });
    await session.ping();
  });

  it("discards a message over 1 MiB without buffering it and answers with a null id", async () => {
    const head = `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"`;
    session.write(head);
    for (let i = 0; i < 5; i++) session.write("a".repeat(300_000));
    session.write(`"}}\n`);
    const r = await session.next((m) => m.error !== undefined);
    expect(r).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringMatching(/exceeds 1048576 bytes/) },
    });
    await session.ping();
  });

  it("accepts a message of exactly 1 MiB", async () => {
    const head = `{"jsonrpc":"2.0","id":"edge","method":"tools/list","params":{${meta},"x":"`;
    const tail = `"}}`;
    const pad = 1_048_576 - head.length - tail.length;
    session.write(`${head}${"a".repeat(pad)}${tail}\n`);
    const r = await session.reply("edge");
    expect(r.result).toMatchObject({ resultType: "complete" });
  });

  it("rejects a second request with an id still in flight", async () => {
    const slow = (await session.request("l", "tools/list")).result.tools.find(
      (t: { name: string }) => t.name.startsWith("main_slow__"),
    ).name;
    const call = { name: slow, arguments: { wait_ms: 800 }, _meta: JSON.parse(`{${meta}}`)._meta };
    session.send({ jsonrpc: "2.0", id: "dup", method: "tools/call", params: call });
    session.send({ jsonrpc: "2.0", id: "dup", method: "ping", params: call });
    const err = await session.next((m) => m.error !== undefined);
    expect(err).toMatchObject({ id: null, error: { code: -32600 } });
    const done = await session.reply("dup");
    expect(done.result.structuredContent.outcome).toBe("succeeded");
    expect(session.garbage).toEqual([]);
  });
});

describe("legacy era through initialize", () => {
  it.each([
    ["2025-06-18", "2025-06-18"],
    ["2025-11-25", "2025-11-25"],
    ["2024-11-05", "2025-11-25"],
  ])("a client asking for %s is answered with %s", async (asked, got) => {
    const s = new RawSession(at.root);
    try {
      s.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      expect((await s.reply(1)).error.code).toBe(-32602);
      s.send({
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: {
          protocolVersion: asked,
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      });
      const init = await s.reply(2);
      expect(init.result).toEqual({
        protocolVersion: got,
        capabilities: {
          tools: { listChanged: true },
          // 2025-11-25 brings its own tasks; 2025-06-18 has none.
          ...(got === "2025-11-25" && {
            tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
          }),
        },
        serverInfo: { name: "rukh", version: "0.1.0" },
      });
      s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      s.send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
      const list = await s.reply(3);
      expect(list.result.tools.length).toBeGreaterThan(0);
      expect(list.result).not.toHaveProperty("ttlMs");
      expect(list.result).not.toHaveProperty("resultType");
      s.send({
        jsonrpc: "2.0",
        id: 4,
        method: "initialize",
        params: { protocolVersion: asked, capabilities: {} },
      });
      expect((await s.reply(4)).error.code).toBe(-32600);
      s.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "nope" } });
      expect((await s.reply(5)).error).toEqual({ code: -32602, message: "Unknown tool" });
    } finally {
      await s.close();
    }
  });
});

describe("transport deadlines and end of input", () => {
  it("closes the transport when a line stays incomplete for 2 s", async () => {
    const s = new RawSession(at.root);
    await s.ping();
    const started = Date.now();
    s.write(`{"jsonrpc":"2.0","id":1,`);
    expect(await s.exited).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(s.stderr).toContain("closed (partial_read_timeout)");
  });

  it("closes the transport when the client stops reading (bounded queue)", async () => {
    const s = new RawSession(at.root);
    await s.ping();
    s.child.stdout.pause();
    s.child.stdout.removeAllListeners("data");
    const ping = `{"jsonrpc":"2.0","id":"p","method":"ping"}\n`;
    const many = Buffer.from(
      Array.from({ length: 4000 }, (_, i) => ping.replace('"p"', `${i}`)).join(""),
    );
    const started = Date.now();
    s.write(many);
    expect(await s.exited).toBe(0);
    // Reading waited for the queue; only the write deadline closes it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(s.stderr).toContain("closed (blocked_write_timeout)");
  });

  it("answers every request of a 10,000-request burst in one write from a client that reads", async () => {
    const s = new RawSession(at.root);
    try {
      await s.ping();
      const ping = `{"jsonrpc":"2.0","id":"p","method":"ping"}\n`;
      s.write(
        Buffer.from(Array.from({ length: 10_000 }, (_, i) => ping.replace('"p"', `${i}`)).join("")),
      );
      const last = await s.reply(9_999, 30_000);
      const ids = new Set([last, ...s.lines].map((m) => (m as Wire).id));
      for (let i = 0; i < 10_000; i++) if (!ids.has(i)) throw new Error(`no answer to ${i}`);
      expect(s.lines.length + 1).toBe(10_000);
      await s.ping();
      expect(s.stderr).not.toContain("closed (");
    } finally {
      await s.close();
    }
  });

  it("bounds open listen streams apart from requests, and keeps reading while they are open", async () => {
    const s = new RawSession(at.root);
    try {
      for (let i = 0; i < 33; i++)
        s.send({
          jsonrpc: "2.0",
          id: `l${i}`,
          method: "subscriptions/listen",
          params: { _meta: MODERN_META, notifications: { toolsListChanged: true } },
        });
      const refused = await s.reply("l32");
      expect(refused.error).toMatchObject({ code: -32600 });
      expect(refused.error.message).toContain("at most 32 subscriptions/listen streams");
      // 32 streams stay open and reading goes on: a request is still answered.
      await s.ping();
    } finally {
      await s.close();
    }
  });

  it("answers requests already read, then exits on end of input", async () => {
    const s = new RawSession(at.root);
    s.send({ jsonrpc: "2.0", id: "last", method: "ping" });
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    expect(s.lines).toEqual([{ jsonrpc: "2.0", id: "last", result: {} }]);
    expect(s.stderr).toContain("closed (eof)");
  });
});

describe("a launch preset the active profile does not define", () => {
  it("gets an explicit list error, never an empty list, and unknown-tool answers", async () => {
    const s = new RawSession(at.root, "no-such-preset");
    try {
      const list = await s.request("l", "tools/list");
      const missing = {
        code: -32603,
        message: "the host's task preset is not defined in the active profile",
      };
      expect(list.error).toEqual(missing);
      const call = await s.request("c", "tools/call", { name: "greet__0", arguments: {} });
      expect(call.error).toEqual(missing);
      await s.ping();
    } finally {
      await s.close();
    }
  });
});
