import { afterEach, describe, expect, it } from "vitest";
import { IpcError, type IpcErrorCode } from "../src/index.js";
import { killAll, node, request, spawnFixture } from "./_helpers.js";

afterEach(killAll);

const child = (options = {}) => spawnFixture(...node("child.mjs"), options);

describe("a well-behaved child on the runtime", () => {
  it("runs a text command end to end", async () => {
    const proc = child();
    proc.invoke(request("test.ipc/greet", { inputs: { name: "Ada" }, explicitInputIds: ["name"] }));
    await proc.ready;
    expect(await proc.completion).toEqual({
      type: "completion",
      outcome: "succeeded",
      commandResult: { kind: "text", text: "hello Ada" },
    });
    expect(await proc.closed).toBeUndefined();
    expect(await proc.exit).toBe(0);
    expect(proc.logs).toEqual([{ type: "log", level: "info", message: "greeting Ada" }]);
    expect(proc.progress).toEqual([{ type: "progress", progress: 1, total: 1 }]);
  });

  it("settles a top-level await of the runtime once the completion is written, and exits 0", async () => {
    // Node 22 and later end a process whose top-level await is still pending with 13.
    const proc = spawnFixture(...node("settles.mjs"), { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    proc.child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    proc.invoke(request("test.ipc/greet"));
    expect((await proc.completion).outcome).toBe("succeeded");
    expect(await proc.exit).toBe(0);
    expect(stderr).toBe("settled\n");
  });

  it("runs a structured command with explicit ids, features and effects", async () => {
    const proc = child();
    proc.invoke(
      request("test.ipc/sum", {
        inputs: { a: 2, b: 40 },
        explicitInputIds: ["a"],
        features: ["command-result/1"],
      }),
    );
    expect(await proc.completion).toEqual({
      type: "completion",
      outcome: "succeeded",
      commandResult: {
        kind: "structured",
        data: { sum: 42, explicit: ["a"], features: ["command-result/1"] },
      },
      effects: ["memory:sum"],
    });
  });

  it("turns a thrown CommandFailure into command_failed with its message only", async () => {
    const proc = child();
    proc.invoke(request("test.ipc/fail"));
    expect(await proc.completion).toEqual({
      type: "completion",
      outcome: "command_failed",
      message: "the repository is dirty",
    });
    expect(await proc.exit).toBe(0);
  });

  it.each([
    ["test.ipc/crash", "handler failed: Error: boom"],
    ["test.ipc/nope", "no handler for command test.ipc/nope"],
  ])("%s exits non-zero without a completion", async (command, line) => {
    const proc = child();
    proc.invoke(request(command));
    await expect(proc.completion).rejects.toMatchObject({ code: "closed_before_completion" });
    expect((await proc.closed)?.code).toBe("closed_before_completion");
    expect(await proc.exit).toBe(1);
    expect(proc.logs[0]?.level).toBe("error");
    expect(proc.logs[0]?.message.startsWith(line)).toBe(true);
  });

  it.each([
    ["client", "stopped: client AbortError"],
    ["owner", "stopped: owner AbortError"],
  ] as const)(
    "aborts the signal on cancel(%s) and accepts the completion after it",
    async (cause, text) => {
      const proc = child();
      proc.invoke(request("test.ipc/wait"));
      await proc.ready;
      expect(proc.cancel(cause)).toBe(true);
      expect(proc.cancel("deadline")).toBe(false);
      const done = await proc.completion;
      expect(done.commandResult).toEqual({ kind: "text", text });
      expect(proc.cancel("client")).toBe(false);
    },
  );

  it("aborts the signal when the deadline passes", async () => {
    const proc = child();
    proc.invoke(request("test.ipc/wait", { remainingMs: 20 }));
    const done = await proc.completion;
    expect(done.commandResult).toEqual({ kind: "text", text: "stopped: deadline TimeoutError" });
  });

  it("bounds log lines and reports what it dropped", async () => {
    const proc = child();
    proc.invoke(request("test.ipc/chatty"));
    expect((await proc.completion).outcome).toBe("succeeded");
    expect(proc.logs).toHaveLength(999);
    expect(proc.logs.every((l) => Buffer.byteLength(l.message) <= 4096)).toBe(true);
    expect(proc.logs.at(-1)?.message).toBe("4002 log lines dropped (limit 998)");
  });

  it("carries a near-1 MiB input and result", async () => {
    const text = "é\u0001".repeat(120_000);
    const proc = child();
    proc.invoke(request("test.ipc/echo", { inputs: { text } }));
    expect((await proc.completion).commandResult).toEqual({ kind: "text", text });
  });

  it("keeps the secret and the channel from grandchildren", async () => {
    const proc = child({ env: { PATH: process.env.PATH ?? "/usr/bin:/bin", KEEP: "1" } });
    proc.invoke(request("test.ipc/grandchild"));
    const done = await proc.completion;
    const data = (done.commandResult as { data: Record<string, unknown> }).data;
    expect(data.ownEnvHasChannel).toBe(false);
    expect(String(data.channel)).toMatch(/^socket:\[\d+\]$/);
    // Only what the host was given (node may add nothing but its own NODE_* vars).
    const env = data.grandchildEnv as Record<string, string>;
    expect(
      Object.keys(env)
        .filter((k) => !k.startsWith("NODE_"))
        .sort(),
    ).toEqual(["KEEP", "PATH"]);
    expect(data.grandchildFds).not.toContain(data.channel);
    expect(String(data.shellFds)).not.toContain(String(data.channel));
    // Nor does the child's own initial environment block hold anything secret.
    // (Read by the child itself: after the completion it may already be gone.)
    const environ = String(data.environ).split("\0");
    expect(environ.filter(Boolean).sort()).toEqual([
      "KEEP=1",
      `PATH=${process.env.PATH ?? "/usr/bin:/bin"}`,
      "RUKH_IPC_FD=3",
    ]);
  });
});

describe("a Python child written from docs/ipc.md", () => {
  const python = (options = {}) =>
    spawnFixture(
      "python3",
      [new URL("./fixtures/python_child.py", import.meta.url).pathname],
      options,
    );

  it("completes a real invocation", async () => {
    const proc = python();
    proc.invoke(request("test.ipc/greet", { inputs: { name: "Ada" }, explicitInputIds: ["name"] }));
    expect(await proc.completion).toEqual({
      type: "completion",
      outcome: "succeeded",
      commandResult: { kind: "text", text: "hello Ada from python" },
    });
    expect(await proc.closed).toBeUndefined();
    expect(await proc.exit).toBe(0);
    expect(proc.logs).toEqual([
      { type: "log", level: "info", message: "python child running test.ipc/greet" },
    ]);
  });

  it("receives a cancel", async () => {
    const proc = python();
    proc.invoke(request("test.ipc/wait"));
    await proc.ready;
    proc.cancel("client");
    expect((await proc.completion).commandResult).toEqual({
      kind: "text",
      text: "stopped: client",
    });
  });
});

describe("a hostile or broken child", () => {
  it.each<[string, IpcErrorCode, boolean]>([
    ["wrong-secret", "handshake_failed", true],
    ["wrong-protocol", "unsupported_protocol", true],
    ["forged", "bad_mac", true],
    ["tampered", "bad_mac", true],
    ["replay", "out_of_sequence", true],
    ["reorder", "out_of_sequence", true],
    ["huge-length", "frame_too_large", true],
    ["truncated", "truncated_frame", true],
    ["early-close", "closed_before_completion", true],
    ["unknown-member", "invalid_message", true],
    ["unknown-type", "invalid_message", true],
    ["duplicate-key", "invalid_json", true],
    ["early-completion", "unexpected_message", false],
    ["log-flood", "diagnostics_limit", true],
  ])("%s closes the channel with %s", async (scenario, code, invoke) => {
    const proc = spawnFixture(...node("raw_child.mjs", scenario));
    if (invoke) proc.invoke(request("test.ipc/greet", { inputs: { name: "x" } }));
    const closed = await proc.closed;
    expect(closed).toBeInstanceOf(IpcError);
    expect(closed?.code).toBe(code);
    await expect(proc.completion).rejects.toBe(closed);
  });

  it("times out a child that never handshakes", async () => {
    const proc = spawnFixture(...node("raw_child.mjs", "silent"), { handshakeTimeoutMs: 200 });
    proc.invoke(request("test.ipc/greet"));
    expect((await proc.closed)?.code).toBe("handshake_timeout");
    await expect(proc.ready).rejects.toMatchObject({ code: "handshake_timeout" });
  });

  it("fails closed on random garbage", async () => {
    // Whatever the bytes happen to say, the channel fails closed: an absurd
    // length, a failed MAC, or (for a plausible length) a handshake that never comes.
    const proc = spawnFixture(...node("raw_child.mjs", "garbage"), { handshakeTimeoutMs: 1000 });
    const closed = await proc.closed;
    expect([
      "frame_too_large",
      "handshake_failed",
      "malformed_frame",
      "handshake_timeout",
    ]).toContain(closed?.code);
  });

  it("accepts the first completion and reports a second as a protocol error", async () => {
    const proc = spawnFixture(...node("raw_child.mjs", "double-completion"));
    proc.invoke(request("test.ipc/greet"));
    expect((await proc.completion).outcome).toBe("succeeded");
    expect((await proc.closed)?.code).toBe("duplicate_completion");
  });

  it("accepts a completion that arrives after a cancel", async () => {
    const proc = spawnFixture(...node("raw_child.mjs", "complete-after-cancel"));
    proc.invoke(request("test.ipc/greet"));
    await proc.ready;
    proc.cancel("owner");
    expect((await proc.completion).message).toBe("saw owner");
  });
});

describe("the host API", () => {
  it("reports a program that cannot be spawned", async () => {
    const proc = spawnFixture("/nonexistent/rukh-command", []);
    expect((await proc.closed)?.code).toBe("spawn_failed");
  });

  it("rejects misuse without sending anything", async () => {
    const proc = child();
    expect(() => proc.cancel("client")).toThrow(expect.objectContaining({ code: "invalid_state" }));
    expect(() =>
      proc.invoke(request("test.ipc/greet", { inputs: { a: 1 }, explicitInputIds: ["b"] })),
    ).toThrow(expect.objectContaining({ code: "invalid_message" }));
    proc.invoke(request("test.ipc/greet", { inputs: { name: "x" } }));
    expect(() => proc.invoke(request("test.ipc/greet"))).toThrow(
      expect.objectContaining({ code: "invalid_state" }),
    );
    expect((await proc.completion).outcome).toBe("succeeded");
  });

  it("the runtime refuses to run without a host", async () => {
    const { spawnSync } = await import("node:child_process");
    const [program, args] = node("child.mjs");
    const run = spawnSync(program, args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("rukh ipc: not_managed");
  });
});
