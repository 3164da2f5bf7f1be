// Command processes started ahead of the call that will use them, for a
// host that serves the same commands again and again (an MCP server). A
// ready process is Node and the runtime's hold bootstrap only: nothing of
// the command is loaded until an admitted, journaled call is handed the
// process, so no extension code ever runs outside a call. Once a call's
// launch has been seen twice for the same caller and revision, the next
// processes for exactly that launch are started held and wait; the next
// call of that launch releases the oldest, which then loads its program.
//
// Ready processes are the host's, not a caller's: a fixed number in all,
// whatever they do; one that says nothing in time, writes anything, ends
// or drops its hold is killed at once; all of a revision end within a
// second of a publication changing the active revision; an unused one ends
// after its idle bound; close() (or the host's death: only launches in a
// pid namespace that dies with the host are kept) ends them all.

import type { ChildProcess } from "node:child_process";
import {
  type CommandProcess,
  type LogMessage,
  type ProgressMessage,
  type SpawnCommandProcessOptions,
  spawnCommandProcess,
} from "@rukh/ipc";
import type { StrictUids } from "@rukh/profile";
import { inheritableDescriptors } from "./_fds.js";
import { STRICT_UID } from "./_launch.js";
import { leaseUid } from "./_uids.js";

/** Where a process's log, progress and output go once a call has it. */
export interface ProcessHooks {
  onLog(entry: LogMessage): void;
  onProgress(progress: ProgressMessage): void;
  output(stream: "stdout" | "stderr", chunk: Buffer): void;
}

/** A launch without its hooks. */
export type Launch = Omit<SpawnCommandProcessOptions, "onLog" | "onProgress">;

/** One call's process: how it is launched, and whose it may be. */
export interface ProcessRequest {
  readonly launch: Launch;
  /**
   * The same launch started held (a managed Node command): what the call
   * runs, released once its package passed its check at hand-over.
   */
  readonly held: Launch | null;
  /** Whether the launch may have processes kept ready (its tree ends with the host). */
  readonly keep: boolean;
  /** The range a uid is leased from for each process, when the launch names {@link STRICT_UID}. */
  readonly uids: StrictUids | null;
  /** The caller (the host binding) the call runs for: ready processes are never shared between two. */
  readonly caller: string;
  /** The revision the call was admitted in. */
  readonly revisionId: string;
  /**
   * Resolves once the call's outcome has been handed back: the next ready
   * processes start after it, so that their spawns never hold its answer.
   */
  readonly settled?: Promise<unknown>;
}

/** A held launch and the range its uid comes from. */
interface HeldLaunch {
  readonly held: Launch;
  readonly uids: StrictUids | null;
}

/** How many ready processes a host keeps (in all, and per launch), and how long one waits unused. */
export interface ReadyLimits {
  readonly max: number;
  readonly perLaunch: number;
  readonly idleMs: number;
}

/** Launches remembered to tell a repeated one. */
const SEEN_MAX = 256;
/** How often the active revision is read while processes are ready. */
const REVISION_POLL_MS = 250;

interface Ready {
  readonly proc: CommandProcess;
  readonly key: string;
  readonly revisionId: string;
  hooks: ProcessHooks | undefined;
  /** A call took it: it is no longer the host's to drop. */
  taken: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Starts `launch` with its output going to the hooks `of` gives (none yet:
 * the process is dropped). The descriptors this process could pass on are
 * read at the spawn (a call that takes a ready process spawns nothing).
 */
function start(launch: Launch, hooksOf: () => ProcessHooks | undefined, early: () => void) {
  const proc = spawnCommandProcess({
    ...launch,
    shadowFds: launch.shadowFds ?? inheritableDescriptors(),
    onLog: (entry) => hooksOf()?.onLog(entry),
    onProgress: (p) => hooksOf()?.onProgress(p),
  });
  for (const stream of ["stdout", "stderr"] as const)
    proc.child[stream]?.on("data", (chunk: Buffer) => {
      const hooks = hooksOf();
      if (hooks !== undefined) hooks.output(stream, chunk);
      else early();
    });
  return proc;
}

/**
 * Starts `launch` with a uid of `uids` leased for its process (put where it
 * names {@link STRICT_UID}) and given back when the process is gone; why
 * not, when no uid of the range is free.
 */
async function startLeased(
  launch: Launch,
  uids: StrictUids | null,
  hooksOf: () => ProcessHooks | undefined,
  early: () => void,
): Promise<CommandProcess | string> {
  if (uids === null) return start(launch, hooksOf, early);
  const lease = await leaseUid(uids);
  if (lease === null)
    return `no uid of the strict range (${uids.count} from ${uids.first}) is free for the command to run as`;
  const uid = String(lease.uid);
  const proc = start(
    { ...launch, args: (launch.args ?? []).map((a) => a.replaceAll(STRICT_UID, uid)) },
    hooksOf,
    early,
  );
  // The uid is the process's until it and its channel are gone (a failed spawn has no process).
  proc.child.once("close", () => lease.release());
  proc.child.once("error", () => {
    if (proc.child.pid === undefined) lease.release();
  });
  return proc;
}

/**
 * Starts a call's process now (held, when the launch has a held form), its
 * output going to `hooks`: what a call gets when no process is kept ready.
 * A string says why it could not be started.
 */
export function launchNow(
  request: ProcessRequest,
  hooks: ProcessHooks,
): Promise<CommandProcess | string> {
  return startLeased(
    request.held === null ? request.launch : { ...request.held, held: true },
    request.uids,
    () => hooks,
    () => {},
  );
}

function kill(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}

/**
 * The ready processes of one host. `launch` gives a call its process (a
 * ready one when there is one for exactly its launch, caller and
 * revision); `close` ends every process not yet given.
 */
export class ReadyProcesses {
  readonly #limits: ReadyLimits;
  readonly #activeRevision: () => Promise<string | null>;
  /** The ready processes of each key, the oldest first. */
  readonly #ready = new Map<string, Ready[]>();
  #count = 0;
  /** Processes being started (a uid being leased for them): they count toward the caps too. */
  #starting = 0;
  readonly #seen = new Map<string, number>();
  #poll: NodeJS.Timeout | undefined;
  #closed = false;

  /** `activeRevision` reads the state directory's active revision id. */
  constructor(limits: ReadyLimits, activeRevision: () => Promise<string | null>) {
    this.#limits = limits;
    this.#activeRevision = activeRevision;
  }

  /** How many ready processes there are now (started, confirmed or not). */
  get count(): number {
    return this.#count;
  }

  /**
   * A process for the call, its output going to `hooks`: a ready one (held,
   * for the caller to release), or a new one; then, when the launch repeats
   * for this caller and revision, the next ones are started held.
   */
  async launch(request: ProcessRequest, hooks: ProcessHooks): Promise<CommandProcess | string> {
    const { launch, held, keep, caller, revisionId } = request;
    const key = JSON.stringify([
      caller,
      revisionId,
      launch.program,
      launch.args,
      launch.env,
      launch.cwd,
    ]);
    const prepare = held !== null && keep && this.#repeats(key);
    const ready = this.#take(key);
    let proc: CommandProcess | string | undefined;
    // One still starting was started before a new one would be: it is the sooner ready.
    const confirmed = ready?.proc.hold?.confirmed.then(
      () => true,
      () => false,
    );
    if (ready !== undefined && (await confirmed) === true) {
      ready.hooks = hooks;
      proc = ready.proc;
    }
    // None, or it failed before it was handed over (and is gone): the call gets a new one.
    proc ??= await launchNow(request, hooks);
    // The next ones start once this call's process is done, not competing with it for the CPU;
    // and only after the turn that hands its outcome back (its final is flushed in the
    // background meanwhile), which a spawn (a fork of this whole process, milliseconds of it
    // synchronous) and a new process's start would otherwise hold back.
    if (prepare) {
      const next = () => this.#prepare(key, { held: held!, uids: request.uids }, revisionId);
      if (typeof proc === "string") next();
      else {
        const { child } = proc;
        const gone = new Promise<void>((res) => {
          if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
            res();
          child.once("close", () => res());
          child.once("error", () => res());
        });
        void Promise.all([proc.closed, gone, request.settled]).then(() => setImmediate(next));
      }
    }
    return proc;
  }

  /** Ends every ready process; none is started after. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#poll);
    for (const list of this.#ready.values()) for (const r of list) this.#end(r);
    this.#ready.clear();
    this.#count = 0;
  }

  /** The oldest ready process of `key`, confirmed or still starting. */
  #take(key: string): Ready | undefined {
    const list = this.#ready.get(key);
    const ready = list?.shift();
    if (ready === undefined) return undefined;
    ready.taken = true;
    this.#forget(key, list!);
    clearTimeout(ready.timer);
    return ready;
  }

  #forget(key: string, list: Ready[]): void {
    this.#count--;
    if (list.length === 0) this.#ready.delete(key);
    if (this.#count === 0) {
      clearInterval(this.#poll);
      this.#poll = undefined;
    }
  }

  #repeats(key: string): boolean {
    const times = (this.#seen.get(key) ?? 0) + 1;
    this.#seen.delete(key);
    this.#seen.set(key, times);
    if (this.#seen.size > SEEN_MAX) this.#seen.delete(this.#seen.keys().next().value!);
    return times > 1;
  }

  /** Starts held processes for `key` until it has its share ready (or the host its most). */
  #prepare(key: string, launch: HeldLaunch, revisionId: string): void {
    const starting: Promise<void>[] = [];
    while (
      !this.#closed &&
      (this.#ready.get(key)?.length ?? 0) + this.#starting < this.#limits.perLaunch &&
      this.#count + this.#starting < this.#limits.max
    )
      starting.push(this.#prepareOne(key, launch, revisionId));
    void Promise.all(starting).then(() => this.#watchRevision());
  }

  async #prepareOne(key: string, launch: HeldLaunch, revisionId: string): Promise<void> {
    let ready: Ready | undefined;
    this.#starting++;
    let proc: CommandProcess | string;
    try {
      // Anything a held process writes before its release is not the bootstrap's: it goes.
      proc = await startLeased(
        { ...launch.held, held: true },
        launch.uids,
        () => ready?.hooks,
        () => this.#drop(ready!),
      );
    } finally {
      this.#starting--;
    }
    // No uid was free: nothing is kept ready.
    if (typeof proc === "string") return;
    if (this.#closed) return kill(proc.child);
    ready = { proc, key, revisionId, hooks: undefined, taken: false, timer: undefined };
    const r = ready;
    // A hold that fails (the process ended, dropped or broke its pipe, or hung) closes the channel.
    proc.hold!.confirmed.catch(() => this.#drop(r));
    void proc.closed.then(() => {
      if (r.hooks === undefined) this.#drop(r);
    });
    r.timer = setTimeout(() => this.#drop(r), this.#limits.idleMs);
    r.timer.unref();
    const list = this.#ready.get(key);
    if (list === undefined) this.#ready.set(key, [r]);
    else list.push(r);
    this.#count++;
  }

  /** Removes a ready process not yet handed to a call, and kills it. */
  #drop(ready: Ready): void {
    if (ready.hooks !== undefined) return;
    if (ready.taken) {
      this.#end(ready);
      return;
    }
    const list = this.#ready.get(ready.key);
    const at = list?.indexOf(ready) ?? -1;
    if (at !== -1) {
      list!.splice(at, 1);
      this.#forget(ready.key, list!);
    }
    this.#end(ready);
  }

  #end(ready: Ready): void {
    clearTimeout(ready.timer);
    kill(ready.proc.child);
  }

  /** While processes are ready, ends those of a revision that is no longer active. */
  #watchRevision(): void {
    if (this.#poll !== undefined || this.#count === 0 || this.#closed) return;
    this.#poll = setInterval(() => {
      void this.#activeRevision().then(
        (active) => {
          for (const list of [...this.#ready.values()])
            for (const r of [...list]) if (r.revisionId !== active) this.#drop(r);
        },
        () => {},
      );
    }, REVISION_POLL_MS);
    this.#poll.unref();
  }
}
