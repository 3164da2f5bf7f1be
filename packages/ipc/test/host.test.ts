import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { IpcError, type IpcErrorCode } from "../src/index.js";
import { fixture, killAll, node, request, spawnFixture } from "./_helpers.js";

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
      effects: ["urn:fx:sum:1"],
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

describe("a held process", () => {
  const bootstrap = fileURLToPath(new URL("../bootstrap/held.cjs", import.meta.url));
  const work = mkdtempSync(join(tmpdir(), "rukh-held-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const held = (program: string, args: string[] = [], options = {}) =>
    spawnFixture(process.execPath, [bootstrap, program, ...args], { held: true, ...options });

  it("runs nothing of the command until it is released, then runs it as Node would have", async () => {
    const marks = join(work, "marks");
    const proc = held(fixture("held/marked.mjs"), [marks, "extra"]);
    await proc.hold!.confirmed;
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(marks)).toBe(false);
    proc.hold!.release();
    proc.invoke(request("test.ipc/greet", { inputs: { name: "Ada" } }));
    // The program saw its own argv: node, itself, its arguments.
    expect(await proc.completion).toMatchObject({ commandResult: { text: "hello Ada 4" } });
    expect(await proc.exit).toBe(0);
    expect(readFileSync(marks, "utf8")).toBe(`${proc.child.pid}\n`);
  });

  it.each([
    ["is this runtime byte for byte", true],
    ["differs from this runtime", false],
  ])(
    "answers the handshake while it waits only when the package's vendored runtime %s",
    async (_what, same) => {
      // A package as `ext pack` makes it: the runtime vendored as node_modules/@rukh/ipc.
      const pkg = mkdtempSync(join(work, "pkg-"));
      const vendored = join(pkg, "node_modules", "@rukh", "ipc");
      cpSync(fileURLToPath(new URL("../dist/runtime", import.meta.url)), vendored, {
        recursive: true,
      });
      if (!same) appendFileSync(join(vendored, "index.js"), "\n// edited\n");
      const marks = join(pkg, "marks");
      writeFileSync(
        join(pkg, "cmd.mjs"),
        `import { appendFileSync } from "node:fs";
import { runCommandProcess, textResult } from "@rukh/ipc";
appendFileSync(${JSON.stringify(marks)}, "ran\\n");
await runCommandProcess({ handlers: { "test.ipc/greet": (ctx) => textResult("hi " + ctx.inputs.name) } });
`,
      );
      const proc = held(join(pkg, "cmd.mjs"));
      await proc.hold!.confirmed;
      const greeted = await Promise.race([
        proc.ready.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 500)),
      ]);
      expect(greeted).toBe(same);
      expect(existsSync(marks)).toBe(false);
      proc.hold!.release();
      proc.invoke(request("test.ipc/greet", { inputs: { name: "Ada" } }));
      expect(await proc.completion).toMatchObject({ commandResult: { text: "hi Ada" } });
      expect(await proc.exit).toBe(0);
      expect(readFileSync(marks, "utf8")).toBe("ran\n");
    },
  );

  it("ends, running nothing of the command, when its host is gone before it starts", async () => {
    // What a process spawned just before its host's kill -9 meets: no host
    // end on its channel or its hold pipe by the time Node has started.
    const marks = join(work, "orphan-marks");
    const child = spawn(process.execPath, [bootstrap, fixture("held/marked.mjs"), marks], {
      stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
    });
    for (const end of child.stdio.slice(3)) (end as Socket).destroy();
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(existsSync(marks)).toBe(false);
  });

  it("cannot be released before it says it runs, nor twice", async () => {
    const proc = held(fixture("held/marked.mjs"), [join(work, "unused")]);
    expect(() => proc.hold!.release()).toThrow(IpcError);
    await proc.hold!.confirmed;
    proc.hold!.release();
    expect(() => proc.hold!.release()).toThrow(/its hold is released/);
  });

  it.each([
    ["exits", /^the held process (ended before its release|closed its hold pipe)$/],
    ["closes", /^the held process closed its hold pipe$/],
    ["writes", /./],
    ["chatters", /^the held process said something other than that it runs$/],
    ["silent", /^the held process did not say it runs within 300 ms$/],
  ])("fails its hold, and closes its channel, when it %s before its release", async (how, why) => {
    const proc = spawnFixture(process.execPath, [fixture("held/misbehaving.cjs"), how], {
      held: true,
      // Only silence is meant to run out the hold timeout; the others must fail
      // for what they do, however slowly a loaded machine starts Node.
      holdTimeoutMs: how === "silent" ? 300 : 10_000,
    });
    const closed = await proc.closed;
    // Bytes on the channel that are not a hello break the protocol before anything else.
    if (how === "writes") expect(closed?.protocolViolation).toBe(true);
    else expect(closed?.code).toBe("hold_failed");
    expect(closed?.message).toMatch(why);
    expect(() => proc.hold!.release()).toThrow(IpcError);
  });
});
