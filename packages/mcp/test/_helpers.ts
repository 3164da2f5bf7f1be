import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { StateDirectory, signPackage } from "@rukh/profile";

/** A wire message as the tests inspect it: loosely. */
// biome-ignore lint/suspicious/noExplicitAny: tests read wire messages member by member
export type Wire = any;

export const FIXTURE_KEY = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.key", import.meta.url),
  "utf8",
);
export const FIXTURE_PUB = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.pub", import.meta.url),
  "utf8",
).trim();

// @rukh/ipc is a dependency of @rukh/core, not of this package: resolve it from there.
const requireHere = createRequire(import.meta.url);
const IPC_URL = pathToFileURL(
  realpathSync(createRequire(realpathSync(requireHere.resolve("@rukh/core"))).resolve("@rukh/ipc")),
).href;

export const SERVE = fileURLToPath(new URL("./fixtures/serve.mjs", import.meta.url));
export const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

export function tempDir(prefix = "rukh-mcp-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

const str = (id: string, extra: object = {}) => ({
  id,
  type: "string",
  maxLength: 256,
  summary: `The ${id}`,
  ...extra,
});
const int = (id: string, extra: object = {}) => ({
  id,
  type: "integer",
  minimum: 0,
  maximum: 120_000,
  summary: `The ${id}`,
  ...extra,
});

export interface FixtureCommand {
  readonly id: string;
  readonly inputs?: readonly object[];
  readonly result?: object;
}

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
];

/** Writes and signs an extension package whose program is `fixtures/commands.mjs`. */
export async function makeExtension(
  parent: string,
  id: string,
  version: string,
  commands: readonly FixtureCommand[] = COMMANDS,
): Promise<string> {
  const dir = mkdtempSync(join(parent, "pkg-"));
  const descriptor = {
    format: "rukh.extension/2",
    id,
    version,
    publisher: "acme",
    commands: commands.map((c) => ({
      id: c.id,
      path: [c.id.replaceAll("_", "-")],
      summary: `Run ${c.id}`,
      inputs: c.inputs ?? [],
      execute: {
        mapping: "managed",
        program: "bin/commands.mjs",
        runtime: "node",
        result: c.result ?? { kind: "text" },
      },
      machine: { eligible: true, interaction: "none", requiredFeatures: [] },
    })),
  };
  writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(descriptor, null, 2));
  mkdirSync(join(dir, "bin"));
  const program = readFileSync(new URL("./fixtures/commands.mjs", import.meta.url), "utf8")
    .replace('from "@rukh/ipc"', `from ${JSON.stringify(IPC_URL)}`)
    .replace('"__EXT__"', JSON.stringify(id));
  writeFileSync(join(dir, "bin", "commands.mjs"), program);
  await signPackage(dir, FIXTURE_KEY, { publisher: "acme" });
  return dir;
}

const preset = (over: object = {}) => ({
  commands: ["fx.main/*", "fx.hidden/*"],
  actions: [],
  resources: [],
  deadlineMs: 20_000,
  maxConcurrency: 4,
  enforcement: "host-trusted",
  ...over,
});

export function ownerConfig(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    brand: "acme",
    endpointNamespace: "acme-mcp-test",
    trustedPublishers: [{ id: "acme", publicKey: FIXTURE_PUB }],
    exposure: { extensions: ["fx.main", "fx.hidden"] },
    presets: {
      default: preset(),
      short: preset({ deadlineMs: 1_000 }),
      narrow: preset({ commands: ["fx.main/greet"] }),
    },
    defaultPreset: "default",
    mcp: { toolNames: "compact" },
    ...over,
  };
}

/** A fresh state directory with `fx.main@1.0.0` and `fx.hidden@1.0.0` installed. */
export async function makeState(): Promise<{ root: string; state: StateDirectory; work: string }> {
  const work = tempDir();
  const root = join(work, "home");
  const state = new StateDirectory(root);
  await state.setConfig(JSON.stringify(ownerConfig()));
  await state.install(await makeExtension(work, "fx.main", "1.0.0"));
  await state.install(await makeExtension(work, "fx.hidden", "1.0.0", [{ id: "secret" }]));
  return { root, state, work };
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The tool name of `identity` in the active revision. */
export async function toolNameOf(state: StateDirectory, identity: string): Promise<string> {
  const p = await state.projection();
  const t = p.tools.find((x) => x.identity === identity);
  if (t === undefined) throw new Error(`no tool for ${identity}`);
  return t.name;
}

export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

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

  async ping(id: string | number = `ping-${Math.random()}`): Promise<void> {
    const r = await this.request(id, "ping");
    if (r.result?.resultType !== "complete") throw new Error(`bad ping reply ${JSON.stringify(r)}`);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}
