// Command processes started ahead of the call that will use them, for a
// host that serves the same commands again and again (an MCP server). Once a
// launch has been seen twice, the next process for exactly that launch
// (program, arguments, environment, working directory: the package's digest,
// the sandbox and the limits are all in them) is started at once and waits
// on its channel, so the next call does not wait for a process to start.
// Every process still runs one invocation only; a call whose launch differs
// in anything (another revision, another preset's limits) never gets it.
// Only a launch in a pid namespace that dies with this host is kept ready:
// a process the journal does not know yet must not be able to outlive it.

import type { ChildProcess } from "node:child_process";
import {
  type CommandProcess,
  type LogMessage,
  type ProgressMessage,
  type SpawnCommandProcessOptions,
  spawnCommandProcess,
} from "@rukh/ipc";

/** Where a process's log, progress and output go once a call has it. */
export interface ProcessHooks {
  onLog(entry: LogMessage): void;
  onProgress(progress: ProgressMessage): void;
  output(stream: "stdout" | "stderr", chunk: Buffer): void;
}

/** A launch without its hooks: what a ready process is started from. */
export type Launch = Omit<SpawnCommandProcessOptions, "onLog" | "onProgress">;

/** How many ready processes a host keeps (in all, and per launch), and how long one waits unused. */
export interface SpareLimits {
  readonly max: number;
  readonly perLaunch: number;
  readonly idleMs: number;
}

/** What a ready process writes before a call has it is kept up to this many bytes. */
const EARLY_OUTPUT_MAX_BYTES = 65_536;
/** Launches remembered to tell a repeated one. */
const SEEN_MAX = 256;

interface Spare {
  proc?: CommandProcess;
  hooks: ProcessHooks | undefined;
  early: [stream: "stdout" | "stderr", chunk: Buffer][];
  earlyBytes: number;
  ended: boolean;
  timer: NodeJS.Timeout | undefined;
}

const unstarted = (): Spare => ({
  hooks: undefined,
  early: [],
  earlyBytes: 0,
  ended: false,
  timer: undefined,
});

/** Starts `launch` with its output going to the spare's hooks (or kept, while it has none). */
function start(launch: Launch, spare: Spare): CommandProcess {
  const proc = spawnCommandProcess({
    ...launch,
    onLog: (entry) => spare.hooks?.onLog(entry),
    onProgress: (p) => spare.hooks?.onProgress(p),
  });
  for (const stream of ["stdout", "stderr"] as const)
    proc.child[stream]?.on("data", (chunk: Buffer) => {
      if (spare.hooks !== undefined) spare.hooks.output(stream, chunk);
      else if (spare.earlyBytes < EARLY_OUTPUT_MAX_BYTES) {
        spare.early.push([stream, chunk]);
        spare.earlyBytes += chunk.length;
      }
    });
  return proc;
}

/** Starts `launch` now, its output going to `hooks`: a call's process when none is kept ready. */
export function launchNow(launch: Launch, hooks: ProcessHooks): CommandProcess {
  const spare = unstarted();
  spare.hooks = hooks;
  return start(launch, spare);
}

function kill(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}

/**
 * The ready processes of one host. `launch` gives a call its process (a
 * ready one when there is one for exactly its launch); `close` ends every
 * process not yet given.
 */
export class Spares {
  readonly #limits: SpareLimits;
  /** The ready processes of each launch, the oldest first. */
  readonly #ready = new Map<string, Spare[]>();
  #count = 0;
  readonly #seen = new Map<string, number>();
  #closed = false;

  constructor(limits: SpareLimits) {
    this.#limits = limits;
  }

  /**
   * A process for `launch`, its output going to `hooks`; starts the next
   * ones when the launch repeats and `keep` allows (a launch whose process
   * tree ends with this host's: a pid namespace that dies with its parent).
   */
  launch(launch: Launch, hooks: ProcessHooks, keep: boolean): CommandProcess {
    const key = JSON.stringify([launch.program, launch.args, launch.env, launch.cwd]);
    const spare = this.#take(key) ?? unstarted();
    spare.proc ??= start(launch, spare);
    const proc = spare.proc;
    spare.hooks = hooks;
    for (const [stream, chunk] of spare.early.splice(0)) hooks.output(stream, chunk);
    if (this.#repeats(key) && keep) this.#prepare(key, launch);
    return proc;
  }

  /** Ends every ready process; none is started after. */
  close(): void {
    this.#closed = true;
    for (const spares of this.#ready.values()) for (const spare of spares) this.#drop(spare);
    this.#ready.clear();
    this.#count = 0;
  }

  /** The oldest ready process of `key` still alive; any that ended are dropped on the way. */
  #take(key: string): Spare | undefined {
    for (let spare = this.#shift(key); spare !== undefined; spare = this.#shift(key)) {
      clearTimeout(spare.timer);
      const { child } = spare.proc!;
      if (!spare.ended && child.exitCode === null && child.signalCode === null) return spare;
      this.#drop(spare);
    }
    return undefined;
  }

  #shift(key: string): Spare | undefined {
    const spares = this.#ready.get(key);
    const spare = spares?.shift();
    if (spare !== undefined) this.#count--;
    if (spares?.length === 0) this.#ready.delete(key);
    return spare;
  }

  #remove(key: string, spare: Spare): void {
    const spares = this.#ready.get(key);
    const at = spares?.indexOf(spare) ?? -1;
    if (at === -1) return;
    spares!.splice(at, 1);
    this.#count--;
    if (spares!.length === 0) this.#ready.delete(key);
  }

  #repeats(key: string): boolean {
    const times = (this.#seen.get(key) ?? 0) + 1;
    this.#seen.delete(key);
    this.#seen.set(key, times);
    if (this.#seen.size > SEEN_MAX) this.#seen.delete(this.#seen.keys().next().value!);
    return times > 1;
  }

  /** Starts processes for `key` until it has its share ready (or the host its most). */
  #prepare(key: string, launch: Launch): void {
    while (
      !this.#closed &&
      (this.#ready.get(key)?.length ?? 0) < this.#limits.perLaunch &&
      this.#count < this.#limits.max
    )
      this.#prepareOne(key, launch);
  }

  #prepareOne(key: string, launch: Launch): void {
    const spare = unstarted();
    const proc = start(launch, spare);
    spare.proc = proc;
    // A ready process that ends (or loses its channel) before a call has it is no longer ready.
    const ended = () => {
      spare.ended = true;
      this.#remove(key, spare);
    };
    void proc.closed.then(ended);
    proc.child.once("exit", ended);
    spare.timer = setTimeout(() => {
      this.#remove(key, spare);
      this.#drop(spare);
    }, this.#limits.idleMs);
    spare.timer.unref();
    const spares = this.#ready.get(key);
    if (spares === undefined) this.#ready.set(key, [spare]);
    else spares.push(spare);
    this.#count++;
  }

  #drop(spare: Spare): void {
    clearTimeout(spare.timer);
    if (spare.proc !== undefined) kill(spare.proc.child);
  }
}
