import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { InputValue } from "@rukh/descriptor";
import { StateDirectory, signPackage } from "@rukh/profile";
import {
  createInvocationCore,
  type HostBinding,
  type InvocationCore,
  type InvocationCoreOptions,
  type InvocationRequest,
} from "../src/index.js";

export const FIXTURE_KEY = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.key", import.meta.url),
  "utf8",
);
export const FIXTURE_PUB = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.pub", import.meta.url),
  "utf8",
).trim();

const IPC_URL = pathToFileURL(
  realpathSync(createRequire(import.meta.url).resolve("@rukh/ipc")),
).href;

export function tempDir(prefix = "rukh-core-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

const text = (id: string, extra: object = {}) => ({
  id,
  type: "string",
  maxLength: 4096,
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

const TEXT_RESULT = { kind: "text" };
const COUNT_RESULT = {
  kind: "structured",
  schema: {
    type: "object",
    properties: { total: { type: "integer", minimum: 0 } },
    required: ["total"],
    additionalProperties: false,
  },
};

interface Cmd {
  id: string;
  inputs?: object[];
  result?: object;
  interaction?: "none" | "optional" | "required";
  requests?: { actions: string[]; resources: string[] };
  runtime?: "node" | "native";
  passthrough?: boolean;
}

export const MAIN_COMMANDS: Cmd[] = [
  { id: "hello", inputs: [text("name", { required: true })] },
  { id: "version", inputs: [int("wait_ms", { default: 0 })] },
  { id: "count", inputs: [int("n", { required: true })], result: COUNT_RESULT },
  { id: "bad_result", result: COUNT_RESULT },
  { id: "no_result", result: COUNT_RESULT },
  { id: "big_result" },
  { id: "fail" },
  { id: "crash" },
  { id: "exit0" },
  { id: "exit1_after" },
  { id: "hang" },
  { id: "stubborn", inputs: [text("path", { required: true })] },
  { id: "flood" },
  { id: "slow", inputs: [int("wait_ms", { default: 0 })] },
  { id: "marker", inputs: [text("path", { required: true })] },
  { id: "read_file", inputs: [text("path", { required: true })] },
  { id: "interactive", interaction: "required" },
  { id: "optional", interaction: "optional" },
  { id: "greedy", requests: { actions: ["net.connect"], resources: [] } },
  { id: "native_tool", runtime: "native" },
  { id: "pt", passthrough: true },
];

function descriptor(id: string, version: string, commands: Cmd[]): object {
  return {
    format: "rukh.extension/2",
    id,
    version,
    publisher: "acme",
    commands: commands.map((c) => ({
      id: c.id,
      path: [c.id.replaceAll("_", "-")],
      summary: `Run ${c.id}`,
      inputs: c.inputs ?? [],
      execute: c.passthrough
        ? { mapping: "passthrough", program: "bin/passthrough.mjs", runtime: "node" }
        : {
            mapping: "managed",
            program: c.runtime === "native" ? "bin/native" : "bin/commands.mjs",
            runtime: c.runtime ?? "node",
            result: c.result ?? TEXT_RESULT,
          },
      ...(c.requests && { requests: c.requests }),
      ...(!c.passthrough && {
        machine: { eligible: true, interaction: c.interaction ?? "none", requiredFeatures: [] },
      }),
    })),
  };
}

/** Writes and signs an extension package built from the fixture programs. */
export async function makeExtension(
  parent: string,
  id: string,
  version: string,
  commands: Cmd[],
): Promise<string> {
  const dir = mkdtempSync(join(parent, "pkg-"));
  writeFileSync(
    join(dir, "rukh-extension.json"),
    JSON.stringify(descriptor(id, version, commands), null, 2),
  );
  mkdirSync(join(dir, "bin"));
  const program = readFileSync(new URL("./fixtures/commands.mjs", import.meta.url), "utf8")
    .replace('from "@rukh/ipc"', `from ${JSON.stringify(IPC_URL)}`)
    .replace('"__VERSION__"', JSON.stringify(version));
  writeFileSync(join(dir, "bin", "commands.mjs"), program);
  writeFileSync(
    join(dir, "bin", "passthrough.mjs"),
    readFileSync(new URL("./fixtures/passthrough.mjs", import.meta.url)),
  );
  // An interpreter that does not exist: execve fails, the program cannot start.
  writeFileSync(join(dir, "bin", "native"), "#!/nonexistent/interpreter\nexit 0\n");
  await signPackage(dir, FIXTURE_KEY, { publisher: "acme" });
  return dir;
}

const preset = (over: object = {}) => ({
  commands: ["fx.main/*", "fx.hidden/*"],
  actions: [],
  resources: [],
  deadlineMs: 10_000,
  maxConcurrency: 4,
  enforcement: "host-trusted",
  ...over,
});

export function ownerConfig(): Record<string, unknown> {
  return {
    brand: "acme",
    endpointNamespace: "acme-test",
    trustedPublishers: [{ id: "acme", publicKey: FIXTURE_PUB }],
    exposure: { extensions: ["fx.main"] },
    presets: {
      default: preset(),
      short: preset({ deadlineMs: 1_500 }),
      pair: preset({ maxConcurrency: 2 }),
      strict: preset({ enforcement: "strict" }),
      narrow: preset({ commands: ["fx.main/hello"] }),
    },
    defaultPreset: "default",
  };
}

/** A fresh state directory with the owner config and `fx.main@1.0.0` and `fx.hidden@1.0.0` installed. */
export async function makeState(): Promise<{ root: string; state: StateDirectory; work: string }> {
  const work = tempDir();
  const root = join(work, "home");
  const state = new StateDirectory(root);
  await state.setConfig(JSON.stringify(ownerConfig()));
  await state.install(await makeExtension(work, "fx.main", "1.0.0", MAIN_COMMANDS));
  await state.install(await makeExtension(work, "fx.hidden", "1.0.0", [{ id: "secret" }]));
  return { root, state, work };
}

export function binding(preset = "default"): HostBinding {
  return { subject: "alice", actor: "test-agent", taskAuthorityRef: "task-1", preset };
}

export async function openCore(
  state: StateDirectory,
  preset = "default",
  extra: Partial<InvocationCoreOptions> = {},
): Promise<InvocationCore> {
  return createInvocationCore({ state, binding: binding(preset), bwrap: null, ...extra });
}

export function call(
  identity: string,
  values: Record<string, InputValue> = {},
  over: Partial<InvocationRequest> = {},
): InvocationRequest {
  return {
    command: { identity },
    supplied: { values: new Map(Object.entries(values)) },
    surface: "mcp",
    ...over,
  };
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}
