import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { MCP_LIMITS } from "../../src/hosting/_limits.js";
import { type ChannelEvents, StdioChannel } from "../../src/stdio/_channel.js";

/** Events that ignore everything but what a test gives. */
function quietEvents(given: Partial<ChannelEvents>): ChannelEvents {
  return {
    line: () => {},
    oversize: () => {},
    ended: () => {},
    broken: () => {},
    busy: () => false,
    ...given,
  };
}

// The channel's backpressure against a reader that is slow but keeps up.
describe("backpressure", () => {
  it("does not count the time reading waits against a line that was incomplete when it began", async () => {
    const input = new PassThrough();
    const callbacks: (() => void)[] = [];
    const output = new Writable({
      write(_chunk, _encoding, cb) {
        callbacks.push(cb);
      },
    });
    // One write completes every 50 ms: progress well within the 500 ms deadline.
    const drain = setInterval(() => callbacks.shift()?.(), 50);
    const lines: string[] = [];
    let broken: string | undefined;
    const channel = new StdioChannel({
      input,
      output,
      limits: { ...MCP_LIMITS, ioDeadlineMs: 500 },
      events: quietEvents({
        line: (b) => lines.push(b.toString("utf8")),
        broken: (r) => {
          broken = r;
        },
      }),
    });
    try {
      input.write('{"first":"');
      // Answers to earlier requests fill the queue past its bound: reading waits.
      for (let i = 0; i < 40; i++) channel.send(Buffer.from(`{"n":${i}}`));
      await new Promise((r) => setTimeout(r, 20));
      input.write('half"}\n{"second":1}\n');
      // Draining to half the bound takes 24 writes, 1.2 s: longer than the line deadline.
      for (let i = 0; i < 60 && lines.length < 2 && broken === undefined; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(broken).toBeUndefined();
      expect(lines).toEqual(['{"first":"half"}', '{"second":1}']);
    } finally {
      clearInterval(drain);
      channel.close("host_closed");
    }
  });

  it("still closes a line left incomplete once reading goes on", async () => {
    const input = new PassThrough();
    const output = new Writable({
      write(_chunk, _encoding, cb) {
        cb();
      },
    });
    let broken: string | undefined;
    new StdioChannel({
      input,
      output,
      limits: { ...MCP_LIMITS, ioDeadlineMs: 200 },
      events: quietEvents({
        broken: (r) => {
          broken = r;
        },
      }),
    });
    input.write('{"never":');
    await new Promise((r) => setTimeout(r, 400));
    expect(broken).toBe("partial_read_timeout");
  });

  it("reads ahead while it waits: a control line is acted on at once, every other line keeps its place", async () => {
    const input = new PassThrough();
    const callbacks: (() => void)[] = [];
    const output = new Writable({
      write(_chunk, _encoding, cb) {
        callbacks.push(cb);
      },
    });
    const lines: string[] = [];
    const offered: string[] = [];
    const channel = new StdioChannel({
      input,
      output,
      limits: { ...MCP_LIMITS, messageMaxBytes: 64 },
      events: quietEvents({
        line: (b) => lines.push(b.toString("utf8")),
        control: (b) => {
          offered.push(b.toString("utf8"));
          return b.toString("utf8").startsWith("cancel");
        },
      }),
    });
    try {
      input.write('first\n{"half":');
      await new Promise((r) => setTimeout(r, 20));
      // Answers the client does not read fill the queue: reading waits with half a line in hand.
      for (let i = 0; i < 40; i++) channel.send(Buffer.from(`{"n":${i}}`));
      input.write("1}\nkeep-1\ncancel-a\nkeep-2\ncancel-b\n");
      await new Promise((r) => setTimeout(r, 20));
      expect(lines).toEqual(["first"]);
      // The end of the line begun before the wait is never offered; the cancels are taken out.
      expect(offered).toEqual(["keep-1", "cancel-a", "keep-2", "cancel-b"]);
      // Past one message's bytes held, reading stops for real: nothing more is offered.
      input.write(`${"x".repeat(80)}\n`);
      await new Promise((r) => setTimeout(r, 20));
      input.write("cancel-c\n");
      await new Promise((r) => setTimeout(r, 20));
      expect(offered).not.toContain("cancel-c");
      expect(input.isPaused()).toBe(true);
      // The client reads its answers: every held line is read in its place.
      for (const cb of callbacks.splice(0)) cb();
      for (let i = 0; i < 50 && lines.length < 5; i++) {
        for (const cb of callbacks.splice(0)) cb();
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(lines).toEqual(
        ["first", '{"half":1}', "keep-1", "keep-2", "x".repeat(80), "cancel-c"].filter(
          (l) => l.length <= 64,
        ),
      );
    } finally {
      channel.close("host_closed");
    }
  });

  it("reads ahead the rest of a chunk when the queue filled while one of its lines was answered", async () => {
    const input = new PassThrough();
    const output = new Writable({
      write(_chunk, _encoding, _cb) {},
    });
    const offered: string[] = [];
    let channel!: StdioChannel;
    channel = new StdioChannel({
      input,
      output,
      limits: MCP_LIMITS,
      events: quietEvents({
        // The first line's answers fill the queue at once: reading waits mid-chunk.
        line: () => {
          for (let i = 0; i < 40; i++) channel.send(Buffer.from(`{"n":${i}}`));
        },
        control: (b) => {
          offered.push(b.toString("utf8"));
          return true;
        },
      }),
    });
    try {
      input.write("first\ncancel-x\n");
      await new Promise((r) => setTimeout(r, 20));
      expect(offered).toEqual(["cancel-x"]);
    } finally {
      channel.close("host_closed");
    }
  });
});
