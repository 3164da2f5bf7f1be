import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { LOST_HOST_SWEEP_MS, readJournal } from "@rukh/core";
import { MODERN_META } from "@rukh/testkit/mcp";
import { describe, expect, it } from "vitest";
import { MCP_LIMITS, McpError, serveStdio } from "../../src/index.js";
import { onJsonLines, useState, type Wire } from "../_helpers.js";

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
    const p = pipe();
    const host = await serveStdio({ state: at.root, binding, input: p.input, output: p.output });
    expect(Object.isFrozen(host.binding)).toBe(true);
    expect(() => {
      (host.binding as { preset: string }).preset = "narrow";
    }).toThrow();
    p.input.end();
    expect(await host.closed).toBe("eof");
  });

  it("sends an error instead of a response over the response limit", async () => {
    const p = pipe();
    const host = await serveStdio({
      state: at.root,
      binding,
      input: p.input,
      output: p.output,
      endpoint: { limits: { responseMaxBytes: 700 } },
    });
    p.input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } })}\n`,
    );
    expect((await p.reply(1)).error).toMatchObject({ code: -32603 });
    const { toolNameOf } = await import("../_helpers.js");
    const { StateDirectory } = await import("@rukh/profile");
    const greet = await toolNameOf(new StateDirectory(at.root), "fx.main/greet");
    p.input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: greet, arguments: { name: "x".repeat(250) }, _meta: MODERN_META } })}\n`,
    );
    expect((await p.reply(2)).error).toMatchObject({
      code: -32603,
      data: { outcome: "succeeded", reason: "completed", invocationId: expect.any(String) },
    });
    p.input.end();
    await host.closed;
  });

  it("pages tools/list within its response limit, every tool once, and names the tool a limit cannot carry", async () => {
    const list = (id: number, cursor?: string) =>
      `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { ...(cursor !== undefined && { cursor }), _meta: MODERN_META } })}\n`;
    // Every tool, as the default limits list it, and the largest one's size on a page.
    const wide = pipe();
    const open = await serveStdio({
      state: at.root,
      binding,
      input: wide.input,
      output: wide.output,
    });
    wide.input.write(list(1));
    const all: Wire[] = (await wide.reply(1)).result.tools;
    wide.input.end();
    await open.closed;
    expect(all.length).toBeGreaterThan(4);
    const largest = Math.max(...all.map((t) => Buffer.byteLength(JSON.stringify(t)) + 1));

    // Room for about two tools a page besides the answer's own framing.
    const limit = 2_048 + 2 * largest + 200;
    const p = pipe();
    const host = await serveStdio({
      state: at.root,
      binding,
      input: p.input,
      output: p.output,
      endpoint: { limits: { responseMaxBytes: limit } },
    });
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
    await host.closed;

    // A limit that cannot carry one tool is answered with what it would take, never an empty page.
    const tight = pipe();
    const small = await serveStdio({
      state: at.root,
      binding,
      input: tight.input,
      output: tight.output,
      endpoint: { limits: { responseMaxBytes: 2_100 } },
    });
    tight.input.write(list(1));
    expect((await tight.reply(1)).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        /^a tools\/list answer of at most 2100 bytes cannot carry the tool fx\.\w+\/\w+ \(\d+ bytes\); it needs at least \d+$/,
      ),
    });
    tight.input.end();
    await small.closed;
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
    input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: MODERN_META } })}\n`,
    );
    input.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: MODERN_META } })}\n`,
    );
    expect(await host.closed).toBe("blocked_write_timeout");
  });

  it("fails a listing that overruns its deadline and never answers a cancelled one", async () => {
    const { StateDirectory } = await import("@rukh/profile");
    // A state directory whose active pointer takes 300 ms to read.
    class SlowState extends StateDirectory {
      slow = false;
      override async activeRevisionId(): Promise<string | null> {
        if (this.slow) await new Promise((r) => setTimeout(r, 300));
        return super.activeRevisionId();
      }
    }
    const state = new SlowState(at.root);
    const p = pipe();
    const host = await serveStdio({
      state,
      binding,
      input: p.input,
      output: p.output,
      endpoint: { limits: { listDeadlineMs: 100 } },
    });
    state.slow = true;
    const list = (id: number) =>
      p.input.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: MODERN_META } })}\n`,
      );
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
    await host.closed;
  });

  it("close() cancels and finalizes, and settles closed", async () => {
    const p = pipe();
    const host = await serveStdio({ state: at.root, binding, input: p.input, output: p.output });
    expect(await host.close()).toBe("closed");
    expect(await host.closed).toBe("closed");
  });

  it("finalizes, while it serves, the open call of a host that is gone as host_lost", async () => {
    const p = pipe();
    const host = await serveStdio({ state: at.root, binding, input: p.input, output: p.output });
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
    expect(await host.closed).toBe("eof");
  }, 20_000);
});
