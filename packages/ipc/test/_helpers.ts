import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  type CommandProcess,
  type InvokeRequest,
  type LogMessage,
  type ProgressMessage,
  type SpawnCommandProcessOptions,
  spawnCommandProcess,
} from "../src/index.js";

/** The `code` of what `fn` throws, or undefined when it returns. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

export const fixture = (name: string) =>
  fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

const running = new Set<ChildProcess>();

export interface Spawned extends CommandProcess {
  readonly logs: LogMessage[];
  readonly progress: ProgressMessage[];
  readonly exit: Promise<number | null>;
}

/** Spawns a fixture under the host; the process is killed by {@link killAll}. */
export function spawnFixture(
  program: string,
  args: readonly string[],
  options: Partial<SpawnCommandProcessOptions> = {},
): Spawned {
  const logs: LogMessage[] = [];
  const progress: ProgressMessage[] = [];
  const proc = spawnCommandProcess({
    program,
    args,
    stdio: ["ignore", "ignore", "ignore"],
    onLog: (l) => logs.push(l),
    onProgress: (p) => progress.push(p),
    ...options,
  });
  running.add(proc.child);
  const exit = new Promise<number | null>((resolve) => {
    if (proc.child.exitCode !== null) resolve(proc.child.exitCode);
    proc.child.on("close", (code) => resolve(code));
    proc.child.on("error", () => resolve(null));
  });
  exit.then(() => running.delete(proc.child));
  return Object.assign(Object.create(proc) as CommandProcess, proc, { logs, progress, exit });
}

export const node = (script: string, ...args: string[]) =>
  [process.execPath, [fixture(script), ...args]] as const;

export function killAll(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

export function request(command: string, overrides: Partial<InvokeRequest> = {}): InvokeRequest {
  return {
    invocationId: "inv-1",
    command,
    inputs: {},
    explicitInputIds: [],
    remainingMs: 30_000,
    features: [],
    ...overrides,
  };
}
