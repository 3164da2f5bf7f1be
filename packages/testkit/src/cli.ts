// A CLI binary run as a user runs it, for the suites that test the built
// `rukh` (and the packages' own fixture binaries): one call in a clean
// environment, PATH and the state directory only unless a test adds more,
// its output collected; or the process itself, for a test that drives it.

import {
  type ChildProcess,
  type SpawnSyncReturns,
  type StdioOptions,
  spawn,
  spawnSync,
} from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built `rukh` executable (`apps/reference-cli/bin/rukh`). */
export const RUKH_BIN: string = fileURLToPath(
  new URL("../../../apps/reference-cli/bin/rukh", import.meta.url),
);

/** One call of a CLI binary: what runs, where, and with which environment. */
export interface CliCall {
  /** The words after the binary. */
  readonly args: readonly string[];
  /** The state directory, named by {@link stateVariable}; none when left out. */
  readonly stateDir?: string;
  /** The variable that names the state directory (default `RUKH_HOME`). */
  readonly stateVariable?: string;
  /** Variables over the clean environment (PATH and the state directory); `undefined` drops one. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The binary (default {@link RUKH_BIN}). */
  readonly bin?: string;
  /** Words that run the binary: Node with flags, `setpriv …`, `faketime -f …` (default none). */
  readonly via?: readonly string[];
  /** The working directory (default this process's). */
  readonly cwd?: string;
}

/** A call {@link runCli} waits for. */
export interface CliRun extends CliCall {
  /** Text written to its stdin (default none: an empty pipe). */
  readonly input?: string;
  /** `ignore`: stdin is /dev/null, as a script or a service runs it (default `pipe`). */
  readonly stdin?: "pipe" | "ignore";
  /** Milliseconds before it is killed with {@link killSignal} (default no limit). */
  readonly timeout?: number;
  /** The signal a timeout sends (default `SIGTERM`). */
  readonly killSignal?: NodeJS.Signals;
  /** The most bytes of stdout or stderr kept (default Node's). */
  readonly maxBuffer?: number;
}

/** How a call ended and what it wrote, as {@link startCli} collects it. */
export interface CliResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of `call`: PATH, the state directory, then the call's own variables. */
export function cliEnv(call: CliCall): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...(call.stateDir !== undefined && { [call.stateVariable ?? "RUKH_HOME"]: call.stateDir }),
    ...call.env,
  };
}

/** The program and its arguments for `call`. */
function argv(call: CliCall): [string, string[]] {
  const [program, ...rest] = [...(call.via ?? []), call.bin ?? RUKH_BIN, ...call.args];
  return [program!, rest];
}

/**
 * Runs `call` to its end and returns what it wrote (as UTF-8) and how it ended.
 *
 * @example
 * const r = runCli({ args: ["doctor"], stateDir: root });
 * expect(r.status, r.stderr).toBe(0);
 */
export function runCli(call: CliRun): SpawnSyncReturns<string> {
  const [program, args] = argv(call);
  return spawnSync(program, args, {
    encoding: "utf8",
    env: cliEnv(call),
    ...(call.cwd !== undefined && { cwd: call.cwd }),
    ...(call.input !== undefined && { input: call.input }),
    ...(call.stdin === "ignore" && { stdio: ["ignore", "pipe", "pipe"] }),
    ...(call.timeout !== undefined && { timeout: call.timeout }),
    ...(call.killSignal !== undefined && { killSignal: call.killSignal }),
    ...(call.maxBuffer !== undefined && { maxBuffer: call.maxBuffer }),
  });
}

/**
 * Starts `call` with `stdio` (default all pipes) and returns the process, for
 * a test that signals it, reads it as it goes or waits for many at once.
 *
 * @example
 * const host = spawnCli({ args: ["nap", "--wait-ms", "3000"], stateDir: root }, "ignore");
 */
export function spawnCli(call: CliCall, stdio: StdioOptions = "pipe"): ChildProcess {
  const [program, args] = argv(call);
  return spawn(program, args, {
    env: cliEnv(call),
    stdio,
    ...(call.cwd !== undefined && { cwd: call.cwd }),
  });
}

/**
 * Starts `call` with stdin from /dev/null and collects what it writes until
 * its streams close; the process is there to signal meanwhile.
 *
 * @example
 * const run = startCli({ args: ["slow"], stateDir: home });
 * run.child.kill("SIGINT");
 * expect((await run).status).toBe(130);
 */
export function startCli(call: CliCall): Promise<CliResult> & { child: ChildProcess } {
  const child = spawnCli(call, ["ignore", "pipe", "pipe"]);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => {
    stdout += d;
  });
  child.stderr!.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<CliResult>((resolve) =>
    child.once("close", (status, signal) => resolve({ status, signal, stdout, stderr })),
  );
  return Object.assign(done, { child });
}
