import { findRun, readJournal } from "@rukh/core";
import { commandsDescriptor } from "@rukh/testkit";
import { makeExtension } from "@rukh/testkit/extension";
import { LEGACY_INITIALIZE, MODERN_META } from "@rukh/testkit/mcp";
import { describe, expect, it } from "vitest";
import {
  COMMANDS,
  ownerConfig,
  PROGRAMS,
  RawSession,
  toolNameOf,
  useState,
  type Wire,
} from "../_helpers.js";

const at = useState();

async function finals(): Promise<Map<string, { outcome: string; reason: string }>> {
  const { records } = await readJournal(at.root);
  const out = new Map<string, { outcome: string; reason: string }>();
  for (const r of records) if (r.type === "final") out.set(r.invocationId, r);
  return out;
}

describe("cancellation", () => {
  it("a client cancel stops only that request and it gets no response", async () => {
    const s = new RawSession(at.root);
    try {
      const slow = await toolNameOf(at.state, "fx.main/slow");
      const before = new Set((await finals()).keys());
      s.call("a", slow, { wait_ms: 30_000 });
      s.call("b", slow, { wait_ms: 1_500 });
      await new Promise((r) => setTimeout(r, 400));
      s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } });
      s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "zzz" } });
      const b = await s.reply("b");
      expect(b.result.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { text: "slow done" },
      });
      await s.ping();
      await new Promise((r) => setTimeout(r, 300));
      expect(s.lines.filter((m: Wire) => m.id === "a")).toEqual([]);
      const added = [...(await finals()).entries()].filter(([id]) => !before.has(id));
      expect(added.map(([, f]) => `${f.outcome}/${f.reason}`).sort()).toEqual([
        "cancelled/client_cancel",
        "succeeded/completed",
      ]);
    } finally {
      await s.close();
    }
  });

  it("a cancel reaches a call in flight while the host is congested, ahead of the requests held behind it", async () => {
    // Two calls in flight are all this host answers at once: what comes next is held.
    const s = new RawSession(at.root, "default", { RUKH_TEST_PENDING_MAX: "2" });
    try {
      const slow = await toolNameOf(at.state, "fx.main/slow");
      const before = new Set((await finals()).keys());
      s.call("a", slow, { wait_ms: 60_000 });
      s.call("b", slow, { wait_ms: 60_000 });
      await new Promise((r) => setTimeout(r, 400));
      s.call("c", slow, { wait_ms: 1 });
      s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } });
      // c runs only once a has ended: its answer, while b still runs, says the cancel was read.
      const c = await s.reply("c");
      expect(c.result.structuredContent).toMatchObject({ outcome: "succeeded" });
      const added = [...(await finals()).entries()].filter(([id]) => !before.has(id));
      expect(added.map(([, f]) => `${f.outcome}/${f.reason}`).sort()).toEqual([
        "cancelled/client_cancel",
        "succeeded/completed",
      ]);
      expect(s.lines.filter((m: Wire) => m.id === "a" || m.id === "b")).toEqual([]);
      s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "b" } });
      await s.ping();
    } finally {
      await s.close();
    }
  }, 30_000);

  it("a preset deadline gives a complete cancelled error result", async () => {
    const s = new RawSession(at.root, "short");
    try {
      s.call("d", await toolNameOf(at.state, "fx.main/slow"), { wait_ms: 10_000 });
      const d = await s.reply("d");
      expect(d.result.isError).toBe(true);
      expect(d.result.structuredContent).toMatchObject({
        outcome: "cancelled",
        reason: "deadline",
      });
    } finally {
      await s.close();
    }
  });

  it("a transport the host closes (a deadline) cancels running work as transport_lost and finalizes it", async () => {
    const s = new RawSession(at.root);
    const before = new Set((await finals()).keys());
    s.call("o", await toolNameOf(at.state, "fx.main/slow"), { wait_ms: 30_000 });
    await new Promise((r) => setTimeout(r, 400));
    s.write(`{"jsonrpc":`); // never completed: the 2 s partial-read deadline closes the transport
    expect(await s.exited).toBe(0);
    const added = [...(await finals()).entries()].filter(([id]) => !before.has(id));
    expect(added.map(([, f]) => `${f.outcome}/${f.reason}`)).toEqual(["cancelled/transport_lost"]);
    expect(s.stderr).toContain("closed (partial_read_timeout)");
  });

  it("an owner shutdown (SIGTERM) answers every call in flight with a complete owner_cancel result, then exits", async () => {
    const s = new RawSession(at.root);
    const slow = await toolNameOf(at.state, "fx.main/slow");
    // An answer means the host serves, and so has its signal handlers (a loaded machine may take a while).
    await s.request("up", "tools/list");
    const before = new Set((await finals()).keys());
    s.call("t1", slow, { wait_ms: 30_000 });
    s.call("t2", slow, { wait_ms: 30_000 });
    // Both calls are running once both start records are on disk.
    for (let i = 0; i < 100; i++) {
      const { records } = await readJournal(at.root);
      const starts = records.filter((r) => r.type === "start" && !before.has(r.invocationId));
      if (starts.length >= 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const started = Date.now();
    s.child.kill("SIGTERM");
    for (const id of ["t1", "t2"]) {
      const r = await s.reply(id);
      expect(r.result.isError).toBe(true);
      expect(r.result.structuredContent).toMatchObject({
        outcome: "cancelled",
        reason: "owner_cancel",
      });
      expect(await findRun(at.root, r.result.structuredContent.invocationId)).toMatchObject({
        outcome: "cancelled",
        reason: "owner_cancel",
      });
    }
    expect(await s.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(s.stderr).toContain("closed (closed)");
  });

  it("end of input is the client leaving: running calls end transport_lost at once, not when they finish", async () => {
    const s = new RawSession(at.root);
    s.call("e", await toolNameOf(at.state, "fx.main/slow"), { wait_ms: 30_000 });
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    s.child.stdin.end();
    // stdout is still read: the cancelled result reaches it.
    const r = await s.reply("e");
    expect(r.result.structuredContent).toMatchObject({
      outcome: "cancelled",
      reason: "transport_lost",
    });
    expect(await s.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(s.stderr).toContain("closed (eof)");
    expect(await findRun(at.root, r.result.structuredContent.invocationId)).toMatchObject({
      outcome: "cancelled",
      reason: "transport_lost",
    });
  });

  it("a client that vanishes (both pipes gone, as after kill -9) ends its calls transport_lost and the host exits", async () => {
    const s = new RawSession(at.root);
    const before = new Set((await finals()).keys());
    s.call("k", await toolNameOf(at.state, "fx.main/slow"), { wait_ms: 30_000 });
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    s.child.stdout.destroy();
    s.child.stdin.destroy();
    expect(await s.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    const added = [...(await finals()).entries()].filter(([id]) => !before.has(id));
    expect(added.map(([, f]) => `${f.outcome}/${f.reason}`)).toEqual(["cancelled/transport_lost"]);
  });
});

describe("result mapping", () => {
  it.each([
    ["fx.main/fail", {}, true, "command_failed"],
    ["fx.main/greet", { name: null }, true, "rejected"],
    ["fx.main/greet", {}, true, "rejected"],
    ["fx.main/sum", { a: 1, b: 1.5 }, true, "rejected"],
    ["fx.main/sum", { a: 1, b: 100000000000000000000000 }, true, "rejected"],
    ["fx.main/sum", { a: 3, b: 4 }, false, "succeeded"],
  ])("%s %j → isError %s, %s", async (identity, args, isError, outcome) => {
    const s = new RawSession(at.root);
    try {
      s.call("r", await toolNameOf(at.state, identity), args);
      const r = await s.reply("r");
      expect(r.result.isError).toBe(isError);
      expect(r.result.structuredContent.outcome).toBe(outcome);
      expect(
        Object.keys(r.result.structuredContent).every((k) =>
          ["invocationId", "outcome", "reason", "commandResult", "effects"].includes(k),
        ),
      ).toBe(true);
      expect(JSON.parse(r.result.content[0].text)).toEqual(r.result.structuredContent);
      if (outcome === "rejected") {
        expect(r.result.structuredContent.reason).toBe("invalid_input");
        expect(JSON.parse(r.result.content[1].text).issues.length).toBeGreaterThan(0);
      }
      // Every invocation id handed to the client is in the journal, rejected at the adapter or not.
      expect(await findRun(at.root, r.result.structuredContent.invocationId)).toMatchObject({
        outcome,
        command: identity,
      });
      expect(JSON.stringify(r.result)).not.toMatch(/retry/i);
    } finally {
      await s.close();
    }
  });
});

describe("noise never reaches the protocol stream", () => {
  it("host log floods, stray console.log and child output floods leave every line parseable", async () => {
    const s = new RawSession(at.root, "default", { RUKH_TEST_FLOOD: "1" });
    try {
      const noisy = await toolNameOf(at.state, "fx.main/noisy");
      for (let i = 0; i < 3; i++) s.call(`n${i}`, noisy);
      for (let i = 0; i < 3; i++) {
        const r = await s.reply(`n${i}`, 20_000);
        expect(r.result.structuredContent).toMatchObject({
          outcome: "succeeded",
          commandResult: { text: "noisy done" },
        });
      }
      for (let i = 0; i < 20; i++) await s.ping(`flood-ping-${i}`);
      expect(s.garbage).toEqual([]);
      expect(s.lines).toEqual([]);
      expect(s.stderr).toContain("stray console.log");
    } finally {
      await s.close();
    }
  });
});

describe("a profile change between list and call", () => {
  it("answers the old name as unknown and never runs the new release", async () => {
    const s = new RawSession(at.root);
    try {
      const listed = await s.request("l1", "tools/list");
      const oldGreet = listed.result.tools.find((t: Wire) =>
        t.name.startsWith("main_greet__"),
      ).name;
      await at.state.install(
        await makeExtension(at.work, commandsDescriptor("fx.main", "2.0.0", COMMANDS), PROGRAMS),
      );
      const before = (await readJournal(at.root)).records.length;
      s.call("c1", oldGreet, { name: "x" });
      expect((await s.reply("c1")).error).toEqual({ code: -32602, message: "Unknown tool" });
      expect((await readJournal(at.root)).records.length).toBe(before);
      const relisted = await s.request("l2", "tools/list");
      const newGreet = relisted.result.tools.find((t: Wire) =>
        t.name.startsWith("main_greet__"),
      ).name;
      expect(newGreet).not.toBe(oldGreet);
      s.call("c2", newGreet, { name: "y" });
      expect((await s.reply("c2")).result.structuredContent.outcome).toBe("succeeded");
      // A cursor that profile did not sign is refused the same way.
      s.send({
        jsonrpc: "2.0",
        id: "c3",
        method: "tools/list",
        params: { cursor: "x", _meta: MODERN_META },
      });
      expect((await s.reply("c3")).error.code).toBe(-32602);
    } finally {
      await s.close();
    }
  });
});

describe("list changes", () => {
  it("2026-07-28: notifies only a subscribed listen stream, after its acknowledgement", async () => {
    const s = new RawSession(at.root);
    try {
      await s.request("l0", "tools/list");
      s.send({
        jsonrpc: "2.0",
        id: "sub",
        method: "subscriptions/listen",
        params: {
          notifications: { toolsListChanged: true, promptsListChanged: true },
          _meta: MODERN_META,
        },
      });
      const ack = await s.next((m) => m.method === "notifications/subscriptions/acknowledged");
      expect(ack.params).toEqual({
        notifications: { toolsListChanged: true },
        _meta: { "io.modelcontextprotocol/subscriptionId": "sub" },
      });
      await new Promise((r) => setTimeout(r, 300));
      await at.state.setConfig(JSON.stringify(ownerConfig({ endpointNamespace: "acme-changed" })));
      const note = await s.next((m) => m.method === "notifications/tools/list_changed", 5_000);
      expect(note.params).toEqual({ _meta: { "io.modelcontextprotocol/subscriptionId": "sub" } });
      // Cancelling the stream ends it without a response.
      s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sub" } });
      await s.ping();
      await new Promise((r) => setTimeout(r, 200));
      expect(s.lines.filter((m: Wire) => m.id === "sub")).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("2026-07-28: end of input ends an open stream with its listen result", async () => {
    const s = new RawSession(at.root);
    s.send({
      jsonrpc: "2.0",
      id: 7,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true }, _meta: MODERN_META },
    });
    await s.next((m) => m.method === "notifications/subscriptions/acknowledged");
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    expect(s.lines).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        result: {
          resultType: "complete",
          _meta: {
            "io.modelcontextprotocol/subscriptionId": 7,
            "io.modelcontextprotocol/serverInfo": { name: "rukh", version: "0.1.0" },
          },
        },
      },
    ]);
  });

  it("2025-11-25: sends the notification after initialized, and nothing before", async () => {
    const s = new RawSession(at.root);
    try {
      s.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: LEGACY_INITIALIZE,
      });
      await s.reply(1);
      s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await new Promise((r) => setTimeout(r, 300));
      await at.state.setConfig(JSON.stringify(ownerConfig({ endpointNamespace: "acme-legacy" })));
      const note = await s.next((m) => m.method === "notifications/tools/list_changed", 5_000);
      expect(note).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    } finally {
      await s.close();
    }
  });
});

describe("arguments are judged on their exact JSON text", () => {
  it.each([
    // Integers are judged by exact value (docs/descriptor.md): 1.0 and 1e0 are 1.
    ['{"a":1.0,"b":2}', "succeeded"],
    ['{"a":1e0,"b":2}', "succeeded"],
    ['{"a":1.000000000000000000001,"b":2}', "rejected"],
    ['{"a":123456789012345678901234567890,"b":2}', "rejected"],
    ['{"a":1,"b":2,"a":3}', "parse error"],
    ['{"a":1,"b":2}', "succeeded"],
  ])("%s → %s", async (args, expected) => {
    const s = new RawSession(at.root);
    try {
      const sum = await toolNameOf(at.state, "fx.main/sum");
      s.write(
        `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":${JSON.stringify(sum)},"arguments":${args},"_meta":${JSON.stringify(MODERN_META)}}}\n`,
      );
      const r = await s.reply("x");
      if (expected === "parse error") expect(r.error.code).toBe(-32700);
      else expect(r.result.structuredContent.outcome).toBe(expected);
    } finally {
      await s.close();
    }
  });
});
