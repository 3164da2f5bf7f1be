import { spawnSync } from "node:child_process";
import type { InputValue } from "@rukh/descriptor";
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
import { afterAll, beforeAll } from "vitest";
import {
  createInvocationCore,
  type HostBinding,
  type InvocationCore,
  type InvocationCoreOptions,
  type InvocationRequest,
} from "../src/index.js";
import type { JournalRecord } from "../src/journal/_journal.js";

export { removeDir as cleanup } from "@rukh/testkit";

const text = (id: string, extra: object = {}) => str(id, { maxLength: 4096, ...extra });

const COUNT_RESULT = {
  kind: "structured",
  schema: {
    type: "object",
    properties: { total: { type: "integer", minimum: 0 } },
    required: ["total"],
    additionalProperties: false,
  },
};

export const MAIN_COMMANDS: FixtureCommand[] = [
  { id: "hello", inputs: [text("name", { required: true })] },
  { id: "version", inputs: [int("wait_ms", { default: 0 })] },
  { id: "count", inputs: [int("n", { required: true })], result: COUNT_RESULT },
  { id: "uptime" },
  { id: "bad_result", result: COUNT_RESULT },
  { id: "many_bad", result: COUNT_RESULT },
  { id: "progress" },
  { id: "long_keys", result: COUNT_RESULT },
  { id: "no_result", result: COUNT_RESULT },
  { id: "big_result" },
  { id: "fail" },
  { id: "crash" },
  { id: "exit0" },
  { id: "exit1_after" },
  { id: "hang" },
  { id: "drop_channel" },
  { id: "garble" },
  { id: "stubborn", inputs: [text("path", { required: true })] },
  { id: "clingy", inputs: [text("path", { required: true })] },
  { id: "flood" },
  { id: "slow", inputs: [int("wait_ms", { default: 0 })] },
  { id: "marker", inputs: [text("path", { required: true })] },
  { id: "read_file", inputs: [text("path", { required: true })] },
  { id: "connect", inputs: [int("port", { required: true })] },
  { id: "interactive", interaction: "required" },
  { id: "optional", interaction: "optional" },
  { id: "greedy", requests: { actions: ["net.connect"], resources: [] } },
  { id: "native_tool", runtime: "native" },
  { id: "pt", passthrough: true },
];

/** The core suites' fixture programs: a version stamped in, a passthrough and an unstartable native program. */
export const PROGRAMS: FixturePrograms = {
  folder: new URL("./fixtures/", import.meta.url),
  passthrough: true,
  native: true,
  stamp: { placeholder: "__VERSION__", field: "version" },
};

const preset = (over: object = {}) =>
  fixturePreset({ commands: ["fx.main/*", "fx.hidden/*"], deadlineMs: 10_000, ...over });

export function ownerConfig(): Record<string, unknown> {
  return fixtureOwnerConfig({
    endpointNamespace: "acme-test",
    exposure: { extensions: ["fx.main"] },
    presets: {
      default: preset(),
      short: preset({ deadlineMs: 1_500 }),
      pair: preset({ maxConcurrency: 2 }),
      strict: preset({ enforcement: "strict" }),
      narrow: preset({ commands: ["fx.main/hello"] }),
      single: preset({ maxConcurrency: 1, deadlineMs: 30_000 }),
    },
  });
}

/** A fresh state directory with the owner config and `fx.main@1.0.0` and `fx.hidden@1.0.0` installed. */
export async function makeState(
  options: { at?: string } = {},
): Promise<{ root: string; state: StateDirectory; work: string }> {
  return mainAndHiddenState({
    prefix: "rukh-core-",
    ...options,
    config: ownerConfig(),
    commands: MAIN_COMMANDS,
    programs: PROGRAMS,
  });
}

/**
 * A state directory (see {@link makeState}) made before a file's tests, and
 * one core per preset over it, opened when first asked for; the cores are
 * closed and the directory removed after the tests. `at`'s fields are set
 * once `beforeAll` has run.
 */
export function useCores(): {
  at: { state: StateDirectory; root: string; work: string };
  core: (preset?: string) => Promise<InvocationCore>;
} {
  const at = {} as { state: StateDirectory; root: string; work: string };
  const cores = new Map<string, InvocationCore>();
  beforeAll(async () => {
    Object.assign(at, await makeState());
  });
  afterAll(async () => {
    for (const c of cores.values()) await c.close();
    removeDir(at.work);
  });
  const core = async (preset = "default") => {
    let c = cores.get(preset);
    if (c === undefined) {
      c = await openCore(at.state, preset);
      cores.set(preset, c);
    }
    return c;
  };
  return { at, core };
}

/** The unprivileged user the hostile and readiness suites run commands as. */
export const NOBODY = 65_534;

/** Why uid {@link NOBODY} cannot run a program of this checkout here (one only root can read), or undefined. */
export function nobodyCannotRun(): string | undefined {
  const r = spawnSync(
    "setpriv",
    [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      "--clear-groups",
      process.execPath,
      new URL("./hostile/can-run.mjs", import.meta.url).pathname,
    ],
    { encoding: "utf8" },
  );
  return r.status === 0
    ? undefined
    : `uid ${NOBODY} cannot load the checkout: ${(r.stderr || r.error?.message || "").split("\n")[0]}`;
}

export function binding(preset = "default"): HostBinding {
  return { subject: "alice", actor: "test-agent", taskAuthorityRef: "task-1", preset };
}

export async function openCore(
  state: StateDirectory,
  preset = "default",
  extra: Partial<InvocationCoreOptions> = {},
): Promise<InvocationCore> {
  return createInvocationCore({ state, binding: binding(preset), ...extra });
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

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/** The `i`th succeeded final of host `h`, for journals a test writes record by record. */
export function finalRecord(i: number): JournalRecord {
  return {
    type: "final",
    invocationId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    at: "2026-12-01T00:00:00.000Z",
    host: "h",
    outcome: "succeeded",
    reason: "completed",
    command: "fx.main/hello",
  };
}

/** A journal start record, as a host would have written it, for journals a test builds by hand. */
export function startRecord(
  invocationId: string,
  host: string,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    actor: "a",
    at: "2026-12-01T00:00:00.000Z",
    command: "fx.main/hello",
    digest: "d",
    host,
    invocationId,
    pid: 1,
    preset: "default",
    revisionId: "r",
    subject: "s",
    surface: "cli",
    taskAuthorityRef: "t",
    type: "start",
    ...over,
  };
}
