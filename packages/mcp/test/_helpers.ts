import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { HostBinding } from "@rukh/core";
import type { StateDirectory } from "@rukh/profile";
import {
  type FixtureCommand,
  fixtureOwnerConfig,
  fixturePreset,
  int,
  removeDir,
  str,
} from "@rukh/testkit";
import { type FixturePrograms, mainAndHiddenState } from "@rukh/testkit/extension";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll } from "vitest";
import type { HttpAuthenticator } from "../src/index.js";
import { serveStdio } from "../src/index.js";

export type { FixtureCommand } from "@rukh/testkit";
export { removeDir as cleanup } from "@rukh/testkit";

/** A wire message as the tests inspect it: loosely. */
// biome-ignore lint/suspicious/noExplicitAny: tests read wire messages member by member
export type Wire = any;

export const SERVE = fileURLToPath(new URL("./fixtures/serve.mjs", import.meta.url));
export const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

export const COMMANDS: readonly FixtureCommand[] = [
  { id: "greet", inputs: [str("name", { required: true })] },
  {
    id: "sum",
    inputs: [int("a", { required: true }), int("b", { required: true })],
    result: {
      kind: "structured",
      schema: {
        type: "object",
        properties: { sum: { type: "integer", minimum: 0 } },
        required: ["sum"],
        additionalProperties: false,
      },
    },
  },
  { id: "slow", inputs: [int("wait_ms", { default: 0 })] },
  { id: "noisy" },
  { id: "fail" },
  { id: "progress" },
  { id: "uptime" },
  { id: "big", inputs: [int("bytes", { required: true, maximum: 3_000_000 })] },
];

/** The MCP suites' fixture program, each extension's id stamped in. */
export const PROGRAMS: FixturePrograms = {
  folder: new URL("./fixtures/", import.meta.url),
  stamp: { placeholder: "__EXT__", field: "id" },
};

const preset = (over: object = {}) =>
  fixturePreset({ commands: ["fx.main/*", "fx.hidden/*"], deadlineMs: 20_000, ...over });

export function ownerConfig(over: Record<string, unknown> = {}): Record<string, unknown> {
  return fixtureOwnerConfig({
    endpointNamespace: "acme-mcp-test",
    exposure: { extensions: ["fx.main", "fx.hidden"] },
    presets: {
      default: preset(),
      short: preset({ deadlineMs: 1_000 }),
      narrow: preset({ commands: ["fx.main/greet"] }),
    },
    mcp: { toolNames: "compact" },
    ...over,
  });
}

/** A fresh state directory with `fx.main@1.0.0` and `fx.hidden@1.0.0` installed. */
export async function makeState(): Promise<{ root: string; state: StateDirectory; work: string }> {
  return mainAndHiddenState({
    prefix: "rukh-mcp-",
    config: ownerConfig(),
    commands: COMMANDS,
    programs: PROGRAMS,
  });
}

/** The tool name of `identity` in the active revision. */
export async function toolNameOf(state: StateDirectory, identity: string): Promise<string> {
  const p = await state.projection();
  const t = p.tools.find((x) => x.identity === identity);
  if (t === undefined) throw new Error(`no tool for ${identity}`);
  return t.name;
}

/** Calls `each` with every line `stream` writes, parsed as JSON, as the lines come. */
export function onJsonLines(stream: NodeJS.ReadableStream, each: (message: Wire) => void): void {
  let buf = "";
  stream.setEncoding("utf8");
  stream.on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const message = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      each(message);
    }
  });
}

/**
 * A raw stdio session with `serve.mjs`: write bytes, read parsed lines.
 */
export class RawSession {
  readonly child;
  readonly lines: unknown[] = [];
  /** Stdout lines that were not JSON (must stay empty). */
  readonly garbage: string[] = [];
  stderr = "";
  #buf = "";
  #waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor(root: string, preset = "default", env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [SERVE, preset], {
      env: { PATH: process.env.PATH ?? "", RUKH_HOME: root, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (d: string) => {
      this.#buf += d;
      let nl = this.#buf.indexOf("\n");
      while (nl !== -1) {
        // Every stdout line must be one JSON-RPC message.
        const text = this.#buf.slice(0, nl);
        try {
          this.lines.push(JSON.parse(text));
        } catch {
          this.garbage.push(text.slice(0, 200));
        }
        this.#buf = this.#buf.slice(nl + 1);
        nl = this.#buf.indexOf("\n");
      }
      for (const w of this.#waiters.splice(0)) w();
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (d: string) => {
      if (this.stderr.length < 100_000) this.stderr += d;
    });
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  write(bytes: string | Buffer): void {
    this.child.stdin.write(bytes);
  }

  send(message: object): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a 2026-07-28 `tools/call` (the reply comes through {@link reply}). */
  call(id: string, name: string, args: object = {}): void {
    this.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, _meta: MODERN_META },
    });
  }

  /** Waits for the next message matching `pred` (default: the next new one). */
  async next(pred: (m: Wire) => boolean, timeoutMs = 10_000): Promise<Wire> {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    for (;;) {
      for (; seen < this.lines.length; seen++) {
        const m = this.lines[seen];
        if (pred(m)) {
          this.lines.splice(seen, 1);
          return m;
        }
      }
      if (Date.now() > deadline) throw new Error(`timed out; stderr: ${this.stderr.slice(-2000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  reply(id: unknown, timeoutMs?: number): Promise<Wire> {
    return this.next((m) => m.id === id, timeoutMs);
  }

  async request(id: string | number, method: string, params: object = {}): Promise<Wire> {
    this.send({ jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } });
    return this.reply(id);
  }

  /** A liveness check: a `ping` of the earlier protocol era (the 2026-07-28 era has none). */
  async ping(id: string | number = `ping-${Math.random()}`): Promise<void> {
    this.send({ jsonrpc: "2.0", id, method: "ping" });
    const r = await this.reply(id);
    if (JSON.stringify(r.result) !== "{}") throw new Error(`bad ping reply ${JSON.stringify(r)}`);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

/** The MCP Inspector's launcher (a devDependency). */
export const INSPECTOR = join(PACKAGE_DIR, "node_modules", ".bin", "mcp-inspector");

/**
 * The MCP Inspector CLI against `serve.mjs` on the state directory `root`
 * (its own files under `work`), in one protocol era: one request per call,
 * its JSON output parsed; `stderr` is what the server and the Inspector logged.
 */
export function inspector(root: string, work: string) {
  const run = promisify(execFile);
  return async (
    era: "legacy" | "modern",
    ...args: string[]
  ): Promise<{ out: Wire; stderr: string }> => {
    const { stdout, stderr } = await run(
      INSPECTOR,
      [
        "--cli",
        process.execPath,
        SERVE,
        "default",
        "--protocol-era",
        era,
        "--format",
        "json",
        "-e",
        `RUKH_HOME=${root}`,
        ...args,
      ],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: work,
          MCP_CATALOG_PATH: join(work, "catalog.json"),
          MCP_CLIENT_CONFIG_PATH: join(work, "client.json"),
        },
        timeout: 60_000,
      },
    );
    return { out: JSON.parse(stdout), stderr };
  };
}

/** How an SDK client's stdio transport starts `serve.mjs` on the state directory `root`. */
export function serverParams(root: string) {
  return {
    command: process.execPath,
    args: [SERVE, "default"],
    env: { PATH: process.env.PATH ?? "", RUKH_HOME: root },
    stderr: "pipe" as const,
  };
}

/**
 * A fresh state directory (see {@link makeState}) made before a file's tests
 * and removed after them; its fields are set once `beforeAll` has run.
 */
export function useState(): { root: string; work: string; state: StateDirectory } {
  const at = {} as { root: string; work: string; state: StateDirectory };
  beforeAll(async () => {
    Object.assign(at, await makeState());
  });
  afterAll(() => {
    if (at.work) removeDir(at.work);
  });
  return at;
}

/**
 * Everything a stdio host started with `options` writes when sent
 * `messages`, one line each, until its input ends; and why it closed.
 */
export async function stdioTranscript(
  options: Omit<Parameters<typeof serveStdio>[0], "input" | "output">,
  messages: readonly object[],
): Promise<{ text: string; closed: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.setEncoding("utf8");
  output.on("data", (d: string) => {
    text += d;
  });
  const host = await serveStdio({ ...options, input, output });
  for (const m of messages) input.write(`${JSON.stringify(m)}\n`);
  input.end();
  const closed = await host.closed;
  return { text, closed };
}

/**
 * The answers a stdio host started with `options` (over `state`'s root)
 * gives to `messages`, in the order of their ids, once its input ends.
 */
export async function stdioAnswers(
  options: Omit<Parameters<typeof serveStdio>[0], "input" | "output">,
  messages: readonly object[],
): Promise<Wire[]> {
  const { text } = await stdioTranscript(options, messages);
  const got = text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Wire);
  return messages.map((m) => got.find((g) => g.id === (m as { id: unknown }).id)!);
}

/**
 * An authenticator that takes one fixed bearer token (`Bearer t`) and binds
 * every request that carries it to `binding`: for suites about the HTTP
 * transport rather than OAuth.
 */
export function fixedTokenAuthenticator(binding: HostBinding, token = "t"): HttpAuthenticator {
  return {
    metadata: {},
    authenticate: async (h) =>
      h === `Bearer ${token}`
        ? { ok: true, binding }
        : { ok: false, status: 401, challenge: "Bearer", message: "no" },
  };
}
