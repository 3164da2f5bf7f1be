import {
  type ExposedPackage,
  exposedState,
  type FixtureState,
  fixturePreset,
  int,
  machine,
  managed,
  removeDir,
} from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll } from "vitest";

/** `fx.sleep` 1.0.0: one command, `nap`, that sleeps `--wait-ms` (default `defaultMs`) in `bin/nap.mjs`. */
export function sleeperDescriptor(defaultMs: number): ExposedPackage["descriptor"] {
  return {
    format: "rukh.extension/2",
    id: "fx.sleep",
    version: "1.0.0",
    publisher: "acme",
    commands: [
      {
        id: "nap",
        path: ["nap"],
        summary: "Sleep a while",
        inputs: [int("wait_ms", { default: defaultMs })],
        execute: managed({ kind: "text" }, "bin/nap.mjs"),
        machine: machine(),
      },
    ],
  };
}

/**
 * A state directory with one signed extension, `fx.sleep`, whose `nap`
 * command sleeps `--wait-ms` (default `defaultMs`) and answers "slept"; its
 * default preset allows it, `maxConcurrency` at a time.
 */
export async function sleeperState(options: {
  prefix: string;
  defaultMs: number;
  maxConcurrency: number;
  config?: object;
}): Promise<FixtureState> {
  return exposedState({
    prefix: options.prefix,
    endpointNamespace: "acme-cli-sleeper",
    presets: {
      default: fixturePreset({
        commands: ["fx.sleep/*"],
        deadlineMs: 30_000,
        maxConcurrency: options.maxConcurrency,
      }),
    },
    ...(options.config !== undefined && { config: options.config }),
    packages: [
      {
        descriptor: sleeperDescriptor(options.defaultMs),
        programs: {
          "bin/nap.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.sleep/nap": async (ctx) => {
  await new Promise((r) => setTimeout(r, ctx.inputs.wait_ms));
  return textResult("slept");
} } });
`,
        },
      },
    ],
  });
}

/**
 * A sleeper state made before a file's tests and removed after them, and
 * the built CLI run against it in a clean environment.
 */
export function useSleeperCli(prefix: string) {
  const at = { work: "", root: "" };
  beforeAll(async () => {
    const made = await sleeperState({ prefix, defaultMs: 5, maxConcurrency: 4 });
    at.work = made.work;
    at.root = made.root;
  });
  afterAll(() => removeDir(at.work));
  const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", RUKH_HOME: at.root });
  const rukh = (...args: string[]) => runCli({ args, stateDir: at.root });
  return { at, env, rukh };
}

/**
 * `fx.jobs` 1.0.0 (rukh.extension/3): the sleeper's `nap` as a tool that may
 * run as a task (`task: optional`), `wait` that runs only as one
 * (`required`), and `ping` that never does (no `task`) when `ping` is set;
 * all three run `bin/nap.mjs`.
 */
export function jobsDescriptor(ping = false): {
  readonly id: string;
  readonly [k: string]: unknown;
} {
  const nap = (sleeperDescriptor(1) as unknown as { commands: object[] }).commands[0]!;
  return {
    format: "rukh.extension/3",
    id: "fx.jobs",
    version: "1.0.0",
    publisher: "acme",
    commands: [
      { ...nap, task: "optional" },
      { ...nap, id: "wait", path: ["wait"], task: "required" },
      ...(ping ? [{ ...nap, id: "ping", path: ["ping"] }] : []),
    ],
  };
}
