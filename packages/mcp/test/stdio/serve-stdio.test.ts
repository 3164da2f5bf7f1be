import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { LOST_HOST_SWEEP_MS, readJournal } from "@rukh/core";
import { StateDirectory } from "@rukh/profile";
import { MODERN_META } from "@rukh/testkit/mcp";
import { describe, expect, it } from "vitest";
import { MCP_LIMITS, McpError, serveStdio } from "../../src/index.js";
import { onJsonLines, toolNameOf, useState, type Wire } from "../_helpers.js";

const at = useState();

const binding = { subject: "s", actor: "a", taskAuthorityRef: "t", preset: "default" };

function pipe() {
  const input = new PassThrough();
  const output = new PassThrough();
  const messages: Wire[] = [];
  onJsonLines(output, (m) => messages.push(m));
  const reply = async (id: unknown): Promise<Wire> => {
    for (let i = 0; i < 500; i++) {
      const m = messages.find((x) => x.id === id);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no reply to ${String(id)}`);
  };
  return { input, output, messages, reply };
}

/** A request line carrying the 2026-07-28 `_meta`. */
const request = (id: number, method: string, params: object = {}) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } })}\n`;

/**
 * `serveStdio` of `state` (the fixture state unless given) over a fresh
 * pipe, under the endpoint `limits` if any.
 */
async function served(limits?: object, state: string | StateDirectory = at.root) {
  const p = pipe();
  const host = await serveStdio({
    state,
    binding,
    input: p.input,
    output: p.output,
    ...(limits !== undefined && { endpoint: { limits } }),
  });
  return { ...p, host };
}

describe("serveStdio in process", () => {
  it("refuses limits looser than the defaults and empty binding members", async () => {
    await expect(
      serveStdio({
        state: at.root,
        binding,
        endpoint: { limits: { messageMaxBytes: MCP_LIMITS.messageMaxBytes + 1 } },
      }),
    ).rejects.toMatchObject({ code: "invalid_limits" });
    await expect(
      serveStdio({ state: at.root, binding: { ...binding, subject: "" } }),
    ).rejects.toBeInstanceOf(McpError);
  });

  it("keeps the launch binding immutable", async () => {
    const { host, input } = await served();
    expect(Object.isFrozen(host.binding)).toBe(true);
    expect(() => {
      (host.binding as { preset: string }).preset = "narrow";
    }).toThrow();
    input.end();
    expect(await host.closed).toBe("eof");
  });

  it("sends an error instead of a response over the response limit", async () => {
    const p = await served({ responseMaxBytes: 700 });
    p.input.write(request(1, "tools/list"));
    expect((await p.reply(1)).error).toMatchObject({ code: -32603 });
    const greet = await toolNameOf(new StateDirectory(at.root), "fx.main/greet");
    p.input.write(request(2, "tools/call", { name: greet, arguments: { name: "x".repeat(250) } }));
    expect((await p.reply(2)).error).toMatchObject({
      code: -32603,
      data: { outcome: "succeeded", reason: "completed", invocationId: expect.any(String) },
    });
    p.input.end();
    await p.host.closed;
  });

  it("pages tools/list within its response limit, every tool once, and names the tool a limit cannot carry", async () => {
    const list = (id: number, cursor?: string) =>
      request(id, "tools/list", cursor === undefined ? {} : { cursor });
    // Every tool, as the default limits list it, and the largest one's size on a page.
    const wide = await served();
    wide.input.write(list(1));
    const all: Wire[] = (await wide.reply(1)).result.tools;
    wide.input.end();
    await wide.host.closed;
    expect(all.length).toBeGreaterThan(4);
    const largest = Math.max(...all.map((t) => Buffer.byteLength(JSON.stringify(t)) + 1));

    // Room for about two tools a page besides the answer's own framing.
    const limit = 2_048 + 2 * largest + 200;
    const p = await served({ responseMaxBytes: limit });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      p.input.write(list(++pages + 1, cursor));
      const answer = await p.reply(pages + 1);
      expect(answer.error).toBeUndefined();
      expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(limit);
      seen.push(...answer.result.tools.map((t: Wire) => t.name));
      cursor = answer.result.nextCursor;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(all.map((t) => t.name));
    p.input.end();
    await p.host.closed;

    // A limit that cannot carry one tool is answered with what it would take, never an empty page.
    const tight = await served({ responseMaxBytes: 2_100 });
    tight.input.write(list(1));
    expect((await tight.reply(1)).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        /^a tools\/list answer of at most 2100 bytes cannot carry the tool fx\.\w+\/\w+ \(\d+ bytes\); it needs at least \d+$/,
      ),
    });
    tight.input.end();
    await tight.host.closed;
  });

  it("closes on a blocked write and cancels running work as the owner", async () => {
    const input = new PassThrough();
    let writes = 0;
    // An output that accepts the first message and then never completes a write.
    const output = new Writable({
      highWaterMark: 1,
      write(_chunk, _enc, cb) {
        if (writes++ === 0) cb();
      },
    });
    const host = await serveStdio({
      state: at.root,
      binding,
      input,
      output,
      endpoint: { limits: { ioDeadlineMs: 200 } },
    });
    input.write(request(1, "ping"));
    input.write(request(2, "ping"));
    expect(await host.closed).toBe("blocked_write_timeout");
  });

  it("fails a listing that overruns its deadline and never answers a cancelled one", async () => {
    // A state directory whose active pointer takes 300 ms to read.
    class SlowState extends StateDirectory {
      slow = false;
      override async activeRevisionId(): Promise<string | null> {
        if (this.slow) await new Promise((r) => setTimeout(r, 300));
        return super.activeRevisionId();
      }
    }
    const state = new SlowState(at.root);
    const p = await served({ listDeadlineMs: 100 }, state);
    state.slow = true;
    const list = (id: number) => p.input.write(request(id, "tools/list"));
    list(1);
    expect((await p.reply(1)).error).toEqual({
      code: -32603,
      message: "tools/list did not finish within 100 ms",
    });
    list(2);
    p.input.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })}\n`,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(p.messages.filter((m) => m.id === 2)).toEqual([]);
    p.input.end();
    await p.host.closed;
  });

  it("close() cancels and finalizes, and settles closed", async () => {
    const { host } = await served();
    expect(await host.close()).toBe("closed");
    expect(await host.closed).toBe("closed");
  });

  it("finalizes, while it serves, the open call of a host that is gone as host_lost", async () => {
    const p = await served();
    // A host's live segment with a call open, and no one holding the host's
    // liveness lock: it is gone, and went after this host started.
    const id = "22222222-2222-4222-8222-222222222222";
    mkdirSync(join(at.root, "journal", "live"), { recursive: true });
    writeFileSync(
      join(at.root, "journal", "live", "gone-host.000001.jsonl"),
      `${JSON.stringify({
        actor: "a",
        at: new Date().toISOString(),
        command: "fx.main/hello",
        digest: "d",
        host: "gone-host",
        invocationId: id,
        pid: 1,
        preset: "default",
        revisionId: "r",
        subject: "s",
        surface: "mcp",
        taskAuthorityRef: "t",
        type: "start",
      })}\n`,
    );
    const finalOf = async () =>
      (await readJournal(at.root)).records.find((r) => r.type === "final" && r.invocationId === id);
    const since = Date.now();
    while ((await finalOf()) === undefined && Date.now() - since < LOST_HOST_SWEEP_MS + 8_000)
      await new Promise((r) => setTimeout(r, 50));
    expect(await finalOf()).toMatchObject({ outcome: "execution_failed", reason: "host_lost" });
    p.input.end();
    expect(await p.host.closed).toBe("eof");
  }, 20_000);
});
