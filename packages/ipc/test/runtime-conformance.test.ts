// One list of scenarios, run against every child runtime: the Node runtime
// (src/_runtime.ts) and the Python runtime (python/rukh_ipc.py), each driving
// the same handler set (fixtures/conformance/child.mjs and child.py) in a real
// process. Most scenarios go through the real host (spawnCommandProcess); the
// ones about hostile or malformed host frames use a raw host written here.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  CHILD_TO_HOST,
  type Direction,
  FrameReader,
  frameMac,
  HOST_TO_CHILD,
} from "../src/_frame.js";
import { type ChildMessage, decodeMessage } from "../src/_messages.js";
import {
  type CancelMessage,
  type CompletionMessage,
  type InvokeRequest,
  IPC_LIMITS,
} from "../src/index.js";
import { fixture, killAll, request, type Spawned, spawnFixture } from "./_helpers.js";

interface Runtime {
  readonly name: string;
  readonly program: string;
  readonly args: readonly string[];
  /** Why this runtime cannot run here, or undefined when it can. */
  readonly unavailable: string | undefined;
}

const nodeRuntime: Runtime = {
  name: "Node",
  program: process.execPath,
  args: [fixture("conformance/child.mjs")],
  unavailable: undefined,
};

/**
 * The interpreter is resolved to its real executable (RUKH_IPC_TEST_PYTHON
 * picks another one), so that no launcher such as a pyenv shim stands between
 * the host and the child and edits its environment. It runs with warnings as
 * errors and in development mode, which also reports leaked resources.
 */
function pythonRuntime(): Runtime {
  const candidate = process.env.RUKH_IPC_TEST_PYTHON ?? "python3";
  const probe = spawnSync(
    candidate,
    ["-c", "import sys; print(sys.executable); print(sys.version_info >= (3, 8))"],
    { encoding: "utf8" },
  );
  const [executable, recent] = (probe.stdout ?? "").trim().split("\n");
  let unavailable: string | undefined;
  if (probe.error !== undefined || probe.status !== 0) {
    unavailable = `${candidate} cannot be run (${probe.error?.message ?? `exit status ${probe.status}`})`;
  } else if (recent !== "True") {
    unavailable = `${candidate} is older than Python 3.8`;
  }
  if (unavailable !== undefined) {
    console.warn(`runtime conformance: the Python runtime is SKIPPED: ${unavailable}`);
  }
  return {
    name: "Python",
    program: executable || candidate,
    args: ["-X", "dev", "-W", "error", fixture("conformance/child.py")],
    unavailable,
  };
}

const runtimes = [nodeRuntime, pythonRuntime()];

interface Started extends Spawned {
  /** Everything the child wrote to stderr so far (complete once `exit` settles). */
  stderr(): string;
}

const rawChildren = new Set<ChildProcess>();
afterEach(() => {
  killAll();
  for (const child of rawChildren) child.kill("SIGKILL");
  rawChildren.clear();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const bytes = (text: string) => Buffer.byteLength(text, "utf8");
const PATH = process.env.PATH ?? "/usr/bin:/bin";

/** A host frame with any payload, sequence number, key and direction, valid or not. */
function frame(
  payload: Buffer,
  sequence: number,
  key: Buffer,
  direction: Direction = HOST_TO_CHILD,
) {
  const header = Buffer.alloc(40);
  header.writeUInt32BE(payload.length, 0);
  header.writeUInt32BE(sequence, 4);
  frameMac(key, direction, sequence, payload).copy(header, 8);
  return Buffer.concat([header, payload]);
}

const invokeJson = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ type: "invoke", ...request("conf.test/wait"), ...overrides });
const cancelJson = (cause = "client") => JSON.stringify({ type: "cancel", cause });

/**
 * A host written by hand: it sends the preamble and then whatever bytes a
 * scenario wants, and reads the child's frames with the host's own reader.
 */
function rawHost(runtime: Runtime) {
  const secret = randomBytes(32);
  const nonce = randomBytes(32);
  const child = spawn(runtime.program, [...runtime.args], {
    env: { PATH, RUKH_IPC_FD: "3" },
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  rawChildren.add(child);
  const channel = child.stdio[3] as Socket;
  const reader = new FrameReader(secret, CHILD_TO_HOST);
  const received: ChildMessage[] = [];
  let readError: unknown;
  let waiting: (() => void) | undefined;
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  channel.on("data", (chunk: Buffer) => {
    try {
      for (const payload of reader.push(chunk)) received.push(decodeMessage(payload, "child"));
    } catch (error) {
      readError = error;
    }
    waiting?.();
  });
  channel.on("error", () => {});
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => {
    child.on("close", (code) => resolve({ code, stderr }));
  });
  channel.write(Buffer.concat([secret, nonce]));
  let sequence = 0;
  return {
    nonce: nonce.toString("hex"),
    received,
    exit,
    /** Sends one authentic host frame (the next sequence number, this secret). */
    send(payload: string | Buffer) {
      channel.write(frame(Buffer.from(payload), sequence++, secret));
    },
    write(data: Buffer) {
      channel.write(data);
    },
    forge(payload: string, options: { sequence?: number; key?: Buffer; direction?: Direction }) {
      const key = options.key ?? secret;
      return frame(Buffer.from(payload), options.sequence ?? sequence, key, options.direction);
    },
    end() {
      channel.end();
    },
    async message(index: number): Promise<ChildMessage> {
      while (received.length <= index) {
        if (readError !== undefined) throw readError;
        if (child.exitCode !== null) throw new Error(`child exited; stderr: ${stderr}`);
        await new Promise<void>((resolve) => {
          waiting = resolve;
          setTimeout(resolve, 50);
        });
      }
      return received[index]!;
    },
  };
}
type RawHost = ReturnType<typeof rawHost>;

describe.each(runtimes)("the $name runtime", (runtime) => {
  const start = (options: Parameters<typeof spawnFixture>[2] = {}): Started => {
    const proc = spawnFixture(runtime.program, runtime.args, {
      stdio: ["ignore", "ignore", "pipe"],
      ...options,
    });
    let stderr = "";
    proc.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    return Object.assign(proc, { stderr: () => stderr });
  };
  const run = (command: string, overrides: Partial<InvokeRequest> = {}) => {
    const proc = start();
    proc.invoke(request(command, overrides));
    return proc;
  };

  describe.skipIf(runtime.unavailable !== undefined)(
    runtime.unavailable === undefined ? "conformance" : `skipped: ${runtime.unavailable}`,
    () => {
      describe("results", () => {
        it("completes with a text result and exits 0", async () => {
          const proc = run("conf.test/text", { inputs: { name: "Ada" } });
          await proc.ready;
          expect(await proc.completion).toEqual({
            type: "completion",
            outcome: "succeeded",
            commandResult: { kind: "text", text: "hello Ada" },
          });
          expect(await proc.closed).toBeUndefined();
          expect(await proc.exit).toBe(0);
          expect(proc.logs).toEqual([]);
          expect(proc.progress).toEqual([]);
        });

        it("hands the handler the invocation and completes with a structured result", async () => {
          const inputs = {
            name: "Ada",
            max_safe: Number.MAX_SAFE_INTEGER,
            min_safe: Number.MIN_SAFE_INTEGER,
            fraction: 0.1,
            large: 1e300,
            nested: { list: [true, false, null, "é\u2028\u0000😀"], empty: {} },
          };
          const proc = run("conf.test/context", {
            invocationId: "inv-9:a/b.c_d",
            inputs,
            explicitInputIds: ["name", "fraction"],
            features: ["command-result/1", "invocationId"],
            remainingMs: 20_000,
          });
          const done = await proc.completion;
          expect(done).toEqual({
            type: "completion",
            outcome: "succeeded",
            commandResult: {
              kind: "structured",
              data: {
                invocationId: "inv-9:a/b.c_d",
                command: "conf.test/context",
                inputs,
                explicitInputIds: ["name", "fraction"],
                features: ["command-result/1", "invocationId"],
                remainingMs: expect.any(Number),
                cancelled: false,
                cancelCause: null,
              },
            },
            effects: ["urn:conf:context"],
            message: "context echoed",
          });
          const remaining = (done.commandResult as { data: { remainingMs: number } }).data
            .remainingMs;
          expect(remaining).toBeGreaterThan(10_000);
          expect(remaining).toBeLessThanOrEqual(20_000);
          expect(await proc.exit).toBe(0);
        });

        it("completes without a result when the handler returns nothing", async () => {
          const proc = run("conf.test/levels", { inputs: { levels: [] } });
          expect(await proc.completion).toEqual({ type: "completion", outcome: "succeeded" });
          expect(await proc.exit).toBe(0);
        });

        it("turns a CommandFailure into command_failed with its message, result and effects", async () => {
          const inputs = {
            message: "the repository is dirty",
            reason: "dirty",
            effects: ["https://tracker.example/issues/1", "urn:conf:b"],
          };
          const proc = run("conf.test/fail", { inputs });
          expect(await proc.completion).toEqual({
            type: "completion",
            outcome: "command_failed",
            commandResult: { kind: "structured", data: { reason: "dirty" } },
            effects: inputs.effects,
            message: inputs.message,
          });
          expect(await proc.exit).toBe(0);
        });

        it("carries a near-1 MiB input and result", async () => {
          const text = "é\u0001".repeat(120_000);
          const proc = run("conf.test/echo", { inputs: { text } });
          expect((await proc.completion).commandResult).toEqual({ kind: "text", text });
          expect(await proc.exit).toBe(0);
        });

        it.each([
          "huge",
          "duplicate-effects",
          "control-effect",
          "unsafe-effect",
          "unsafe-integer",
          "nan",
        ])(
          "does not send a completion the host would reject (%s): error line, exit 1",
          async (kind) => {
            const proc = run("conf.test/bad-result", { inputs: { kind } });
            await expect(proc.completion).rejects.toMatchObject({
              code: "closed_before_completion",
            });
            expect(await proc.exit).toBe(1);
            expect(proc.logs).toHaveLength(1);
            expect(proc.logs[0]?.level).toBe("error");
            expect(proc.logs[0]?.message).toMatch(/^cannot send the completion: \S/);
          },
        );
      });

      describe("diagnostics", () => {
        it("sends log lines at every level, in order", async () => {
          const levels = ["debug", "info", "warn", "error", "info"];
          const proc = run("conf.test/levels", { inputs: { levels } });
          expect((await proc.completion).outcome).toBe("succeeded");
          expect(proc.logs).toEqual(
            levels.map((level) => ({ type: "log", level, message: `${level} line` })),
          );
        });

        it("sends progress reports in order, with and without total and message", async () => {
          const steps = [
            [0, 4, "start"],
            [1, 4, null],
            [2, null, "no total"],
            [2.5, null, null],
            [4, 4, "done"],
          ] as const;
          const proc = run("conf.test/progress", { inputs: { steps: steps.map((s) => [...s]) } });
          expect((await proc.completion).outcome).toBe("succeeded");
          expect(proc.progress).toEqual(
            steps.map(([progress, total, message]) => ({
              type: "progress",
              progress,
              ...(total === null ? {} : { total }),
              ...(message === null ? {} : { message }),
            })),
          );
        });

        it("sends at most maxProgressFrames progress reports and drops the rest", async () => {
          const count = IPC_LIMITS.maxProgressFrames + 25;
          const steps = Array.from({ length: count }, (_, i) => [i, count, null]);
          const proc = run("conf.test/progress", { inputs: { steps } });
          expect((await proc.completion).outcome).toBe("succeeded");
          expect(await proc.closed).toBeUndefined();
          expect(proc.progress.map((p) => p.progress)).toEqual(
            steps.slice(0, IPC_LIMITS.maxProgressFrames).map(([i]) => i),
          );
        });

        it("refuses progress numbers outside the protocol's bounds", async () => {
          const proc = run("conf.test/bad-progress");
          expect((await proc.completion).commandResult).toEqual({
            kind: "structured",
            data: { codes: Array(5).fill("invalid_message") },
          });
          expect(proc.progress).toEqual([{ type: "progress", progress: 2, total: 4 }]);
        });

        it("keeps maxLogFrames - 2 author lines and reports the dropped count before the completion", async () => {
          const kept = IPC_LIMITS.maxLogFrames - 2;
          const count = kept + 202;
          const text = "é".repeat(3000);
          const proc = run("conf.test/logs", { inputs: { count, text } });
          expect((await proc.completion).outcome).toBe("succeeded");
          expect(await proc.closed).toBeUndefined();
          expect(proc.logs).toHaveLength(kept + 1);
          const authored = proc.logs.slice(0, kept);
          expect(authored.every((l, i) => l.message.startsWith(`${i} éé`))).toBe(true);
          expect(authored.every((l) => bytes(l.message) <= IPC_LIMITS.maxTextBytes)).toBe(true);
          expect(proc.logs.at(-1)).toEqual({
            type: "log",
            level: "warn",
            message: `${count - kept} log lines dropped (limit ${kept})`,
          });
        });

        // Each text and what it must become: cut at maxTextBytes - 3 or the
        // character boundary before it, then "…" (3 bytes).
        it.each([
          ["4096 ASCII bytes, unchanged", "a".repeat(4096), "a".repeat(4096)],
          ["4097 ASCII bytes", "a".repeat(4097), `${"a".repeat(4093)}…`],
          ["2-byte characters", "é".repeat(3000), `${"é".repeat(2046)}…`],
          ["4-byte characters", "😀".repeat(2000), `${"😀".repeat(1023)}…`],
          ["4-byte characters after one ASCII", `x${"😀".repeat(2000)}`, `x${"😀".repeat(1023)}…`],
          ["3-byte characters", "€".repeat(1500), `${"€".repeat(1364)}…`],
        ])("clips text to maxTextBytes at a character boundary: %s", async (_, text, clipped) => {
          expect(bytes(clipped)).toBeLessThanOrEqual(IPC_LIMITS.maxTextBytes);
          const proc = run("conf.test/clip", { inputs: { text } });
          const done = await proc.completion;
          expect(done.message).toBe(clipped);
          expect(proc.logs).toEqual([{ type: "log", level: "info", message: clipped }]);
          expect(proc.progress).toEqual([
            { type: "progress", progress: 1, total: 1, message: clipped },
          ]);
        });

        it("replaces lone surrogates with U+FFFD and keeps surrogate pairs", async () => {
          const proc = run("conf.test/surrogates");
          expect((await proc.completion).message).toBe("\ufffd");
          expect(proc.logs).toEqual([{ type: "log", level: "warn", message: "a\ufffdb\ufffdc😀" }]);
        });

        it("sends nothing after the completion, and exits although the handler left work running", async () => {
          const proc = run("conf.test/linger");
          expect((await proc.completion).commandResult).toEqual({
            kind: "text",
            text: "left running",
          });
          // Any frame after the completion would close the channel with unexpected_message.
          expect(await proc.closed).toBeUndefined();
          expect(await proc.exit).toBe(0);
          expect(proc.logs.length).toBeGreaterThanOrEqual(3);
          expect(proc.logs.map((l) => l.message)).toEqual(proc.logs.map((_, i) => `tick ${i + 1}`));
        });
      });

      describe("cancellation", () => {
        it.each(["client", "owner", "deadline"] as const)(
          "a handler waiting for cancellation sees a host cancel (%s) and completes",
          async (cause) => {
            const proc = run("conf.test/wait");
            await proc.ready;
            await sleep(50);
            expect(proc.cancel(cause)).toBe(true);
            expect((await proc.completion).commandResult).toEqual({
              kind: "text",
              text: `stopped: ${cause}`,
            });
            expect(await proc.exit).toBe(0);
          },
        );

        it("a cancelled handler can fail instead", async () => {
          const proc = run("conf.test/wait", { inputs: { after: "fail" } });
          await proc.ready;
          proc.cancel("owner");
          expect(await proc.completion).toEqual({
            type: "completion",
            outcome: "command_failed",
            message: "cancelled (owner)",
          });
          expect(await proc.exit).toBe(0);
        });

        it("a cancelled handler can exit the process without a completion", async () => {
          const proc = run("conf.test/wait", { inputs: { after: "exit" } });
          await proc.ready;
          proc.cancel("client");
          await expect(proc.completion).rejects.toMatchObject({ code: "closed_before_completion" });
          expect(await proc.exit).toBe(7);
        });

        it("cancels with cause deadline once remainingMs has passed", async () => {
          const remainingMs = 300;
          const started = Date.now();
          const proc = run("conf.test/wait", { remainingMs });
          expect((await proc.completion).commandResult).toEqual({
            kind: "text",
            text: "stopped: deadline",
          });
          expect(Date.now() - started).toBeGreaterThanOrEqual(remainingMs - 5);
          expect(await proc.exit).toBe(0);
        });

        // docs/ipc.md §7: the host may send one cancel at any time before the
        // completion; the child's own deadline passing first does not change that.
        it("accepts a host cancel that arrives after its own deadline passed", async () => {
          const proc = run("conf.test/wait", { remainingMs: 20, inputs: { linger_ms: 1500 } });
          await proc.ready;
          await sleep(300);
          expect(proc.cancel("client")).toBe(true);
          expect((await proc.completion).commandResult).toEqual({
            kind: "text",
            text: "stopped: deadline",
          });
          expect(await proc.exit).toBe(0);
        });
      });

      describe("failures", () => {
        it("a handler raising anything else logs it as an error and exits 1 without a completion", async () => {
          const proc = run("conf.test/crash");
          await expect(proc.completion).rejects.toMatchObject({ code: "closed_before_completion" });
          expect(await proc.exit).toBe(1);
          expect(proc.logs).toHaveLength(1);
          expect(proc.logs[0]?.level).toBe("error");
          expect(proc.logs[0]?.message).toMatch(/^handler failed: [\s\S]*boom/);
        });

        it("a command without a handler logs an error and exits 1 without a completion", async () => {
          const proc = run("conf.test/nope");
          await expect(proc.completion).rejects.toMatchObject({ code: "closed_before_completion" });
          expect(await proc.exit).toBe(1);
          expect(proc.logs).toEqual([
            { type: "log", level: "error", message: "no handler for command conf.test/nope" },
          ]);
        });

        it.each([
          ["without RUKH_IPC_FD", {}],
          ["with RUKH_IPC_FD=4", { RUKH_IPC_FD: "4" }],
          ["with RUKH_IPC_FD=3 but no fd 3", { RUKH_IPC_FD: "3" }],
        ])("refuses to run %s: not_managed, exit 2", (_, extra) => {
          const ran = spawnSync(runtime.program, runtime.args, {
            encoding: "utf8",
            env: { PATH, ...extra },
          });
          expect(ran.status).toBe(2);
          expect(ran.stderr).toMatch(/^rukh ipc: not_managed: \S.*\n$/);
          expect(ran.stdout).toBe("");
        });
      });

      describe("isolation", () => {
        it("keeps RUKH_IPC_FD, the secret and the channel from the handler's environment and its children", async () => {
          const proc = start({ env: { PATH, KEEP: "1" } });
          proc.invoke(request("conf.test/env"));
          const { data } = (await proc.completion).commandResult as {
            data: Record<string, unknown>;
          };
          expect(data.ownEnvHasChannel).toBe(false);
          // Nothing but what the host was given, less RUKH_IPC_FD (an interpreter
          // may add its own: Node's NODE_* options, Python's PEP 538 LC_CTYPE).
          const env = data.grandchildEnv as Record<string, string>;
          const own = Object.keys(env).filter((k) => !/^(NODE_.*|LC_CTYPE)$/.test(k));
          expect(own.sort()).toEqual(["KEEP", "PATH"]);
          expect(env.KEEP).toBe("1");
          // The initial environment block, as any same-user process could read it,
          // holds RUKH_IPC_FD=3 and nothing secret.
          expect(String(data.environ).split("\0").filter(Boolean).sort()).toEqual([
            "KEEP=1",
            `PATH=${PATH}`,
            "RUKH_IPC_FD=3",
          ]);
          expect(String(data.channel)).toMatch(/^socket:\[\d+\]$/);
          expect(String(data.shellFds)).toMatch(/\b0 -> /);
          expect(String(data.shellFds)).not.toContain(String(data.channel));
        });
      });

      describe("host frames", () => {
        it("sends an authenticated hello echoing the nonce as soon as it has the preamble", async () => {
          const host = rawHost(runtime);
          expect(await host.message(0)).toEqual({
            type: "hello",
            protocol: "rukh.ipc/1",
            hostNonce: host.nonce,
          });
        });

        it("accepts any whitespace, member order, escapes and integral number spelling", async () => {
          const host = rawHost(runtime);
          await host.message(0);
          host.send(
            `\r\n { "features" : [ ] , "remainingMs" : 3e4 , "explicitInputIds" : [ "na\\u006de" ] ,\t` +
              `"inputs" : { "name" : "\\u0041da \\ud83d\\ude00\\/" } , ` +
              `"command" : "conf.test/context" , "invocationId" : "inv-1" , "type" : "invoke" } \n`,
          );
          const done = (await host.message(1)) as CompletionMessage;
          expect(done.type).toBe("completion");
          const data = (done.commandResult as { data: Record<string, unknown> }).data;
          expect(data.inputs).toEqual({ name: "Ada 😀/" });
          expect(data.explicitInputIds).toEqual(["name"]);
          expect(data.remainingMs).toBeLessThanOrEqual(30_000);
          expect((await host.exit).code).toBe(0);
        });

        it("accepts a payload nested exactly 48 levels deep", async () => {
          const host = rawHost(runtime);
          await host.message(0);
          const deepest = `${"[".repeat(46)}${"]".repeat(46)}`; // inside the envelope and inputs
          host.send(
            invokeJson({
              command: "conf.test/levels",
              inputs: { levels: [], deep: JSON.parse(deepest) },
            }),
          );
          expect(await host.message(1)).toEqual({ type: "completion", outcome: "succeeded" });
          expect((await host.exit).code).toBe(0);
        });

        const deep = `${"[".repeat(47)}${"]".repeat(47)}`; // payload depth 49
        const many = `[${Array(IPC_LIMITS.maxNodes).fill(0).join(",")}]`;
        const invokeWith = (inputs: string) =>
          invokeJson().replace('"inputs":{}', `"inputs":${inputs}`);
        const withBytes = (raw: number[]) => {
          const [before, after] = invokeWith('{"a":"@"}').split("@");
          return Buffer.concat([Buffer.from(before!), Buffer.from(raw), Buffer.from(after!)]);
        };
        const bad = (payload: string | Buffer) => (h: RawHost) => h.send(payload);
        const afterInvoke = (then: (h: RawHost) => void) => (h: RawHost) => {
          h.send(invokeJson({ inputs: { linger_ms: 2000 } }));
          then(h);
        };
        const scenarios: [string, string, (h: RawHost) => void][] = [
          ["a zero length", "malformed_frame", (h) => h.write(Buffer.alloc(40))],
          [
            "a length over 1 MiB (only its 4 bytes sent)",
            "frame_too_large",
            (h) => h.write(Buffer.from([0xff, 0xff, 0xff, 0xff])),
          ],
          [
            "a length of 1 MiB + 1",
            "frame_too_large",
            (h) => h.write(Buffer.from([0, 0x10, 0, 1])),
          ],
          [
            "a frame keyed with another secret",
            "bad_mac",
            (h) => h.write(h.forge(invokeJson(), { key: randomBytes(32) })),
          ],
          [
            "a frame authenticated for the other direction",
            "bad_mac",
            (h) => h.write(h.forge(invokeJson(), { direction: CHILD_TO_HOST })),
          ],
          [
            "a tampered payload",
            "bad_mac",
            (h) => {
              const f = h.forge(invokeJson(), {});
              f.writeUInt8(f.readUInt8(f.length - 2) ^ 1, f.length - 2);
              h.write(f);
            },
          ],
          [
            "a frame out of sequence",
            "out_of_sequence",
            (h) => h.write(h.forge(invokeJson(), { sequence: 1 })),
          ],
          [
            "a replayed invoke",
            "out_of_sequence",
            (h) => {
              const f = h.forge(invokeJson(), {});
              h.write(f);
              h.write(f);
            },
          ],
          ["a duplicate key", "invalid_json", bad(invokeWith('{"a":1,"a":2}'))],
          ["a byte order mark", "invalid_json", bad(`\ufeff${invokeJson()}`)],
          ["NaN", "invalid_json", bad(invokeWith('{"a":NaN}'))],
          ["Infinity", "invalid_json", bad(invokeWith('{"a":-Infinity}'))],
          ["a number overflowing binary64", "invalid_json", bad(invokeWith('{"a":1e400}'))],
          ["an unsafe integer", "invalid_json", bad(invokeWith('{"a":9007199254740992}'))],
          ["an escaped lone surrogate", "invalid_json", bad(invokeWith('{"a":"\\ud800"}'))],
          ["invalid UTF-8", "invalid_json", bad(withBytes([0xc0, 0xaf]))],
          ["a UTF-8 encoded surrogate", "invalid_json", bad(withBytes([0xed, 0xa0, 0x80]))],
          ["an unescaped control character", "invalid_json", bad(invokeWith('{"a":"\u0001"}'))],
          ["trailing content", "invalid_json", bad(`${invokeJson()} {}`)],
          ["a trailing comma", "invalid_json", bad(invokeWith('{"a":1,}'))],
          ["nesting over 48 levels", "invalid_json", bad(invokeWith(`{"a":${deep}}`))],
          ["over 16,384 members and elements", "invalid_json", bad(invokeWith(`{"a":${many}}`))],
          ["a message that is not an object", "invalid_message", bad("[]")],
          [
            "an unknown message type",
            "invalid_message",
            bad('{"type":"hello","protocol":"rukh.ipc/1","hostNonce":"00"}'),
          ],
          ["an invoke with an unknown member", "invalid_message", bad(invokeJson({ extra: true }))],
          [
            "an invoke without features",
            "invalid_message",
            bad(invokeJson({ features: undefined })),
          ],
          [
            "an invalid command identity",
            "invalid_message",
            bad(invokeJson({ command: "conf.test" })),
          ],
          ["an invalid invocation id", "invalid_message", bad(invokeJson({ invocationId: "-x" }))],
          [
            "an over-long invocation id",
            "invalid_message",
            bad(invokeJson({ invocationId: "i".repeat(257) })),
          ],
          ["an invalid input id", "invalid_message", bad(invokeJson({ inputs: { Name: 1 } }))],
          [
            "an explicit id that is not an input",
            "invalid_message",
            bad(invokeJson({ explicitInputIds: ["a"] })),
          ],
          [
            "duplicate explicit ids",
            "invalid_message",
            bad(invokeJson({ inputs: { a: 1 }, explicitInputIds: ["a", "a"] })),
          ],
          ["duplicate features", "invalid_message", bad(invokeJson({ features: ["x", "x"] }))],
          ["remainingMs 0", "invalid_message", bad(invokeJson({ remainingMs: 0 }))],
          ["remainingMs 1.5", "invalid_message", bad(invokeJson({ remainingMs: 1.5 }))],
          [
            "remainingMs over 24 hours",
            "invalid_message",
            bad(invokeJson({ remainingMs: 86_400_001 })),
          ],
          ["remainingMs as a string", "invalid_message", bad(invokeJson({ remainingMs: "5" }))],
          ["remainingMs true", "invalid_message", bad(invokeJson({ remainingMs: true }))],
          [
            "a cancel with an unknown cause",
            "invalid_message",
            afterInvoke(bad(cancelJson("nope"))),
          ],
          [
            "a cancel with an unknown member",
            "invalid_message",
            afterInvoke(bad('{"type":"cancel","cause":"client","x":1}')),
          ],
          ["a cancel before invoke", "unexpected_message", bad(cancelJson())],
          ["a second invoke", "unexpected_message", afterInvoke(bad(invokeJson()))],
          [
            "a second cancel",
            "unexpected_message",
            afterInvoke((h) => {
              h.send(cancelJson());
              h.send(cancelJson("owner"));
            }),
          ],
          ["the host closing the channel", "closed_before_completion", afterInvoke((h) => h.end())],
        ];

        it.each(scenarios)("fails closed on %s: exit 2 with %s", async (_, code, act) => {
          const host = rawHost(runtime);
          await host.message(0);
          act(host);
          const { code: status, stderr } = await host.exit;
          expect(status).toBe(2);
          expect(stderr).toMatch(new RegExp(`^rukh ipc: ${code}: \\S`, "m"));
          expect(host.received.filter((m) => m.type !== "hello" && m.type !== "log")).toEqual([]);
        });

        it("reports a channel that ends inside a frame as truncated_frame", async () => {
          const host = rawHost(runtime);
          await host.message(0);
          host.send(invokeJson());
          host.write(host.forge(cancelJson(), {}).subarray(0, 30));
          host.end();
          const { code: status, stderr } = await host.exit;
          expect(status).toBe(2);
          expect(stderr).toMatch(/^rukh ipc: truncated_frame: \S/m);
        });

        it("does not act on a cancel that fails its MAC", async () => {
          const host = rawHost(runtime);
          await host.message(0);
          host.send(invokeJson());
          const forged: CancelMessage = { type: "cancel", cause: "client" };
          host.write(host.forge(JSON.stringify(forged), { key: randomBytes(32) }));
          const { code: status, stderr } = await host.exit;
          expect(status).toBe(2);
          expect(stderr).toMatch(/^rukh ipc: bad_mac: /m);
          // The handler would have completed with "stopped: client" had it acted on it.
          expect(host.received.map((m) => m.type)).toEqual(["hello"]);
        });
      });
    },
  );
});
