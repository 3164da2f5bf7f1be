// Starting a command's process: its program, environment and descriptors,
// with the channel (and a held process's hold pipe) on the fds the runtime
// expects and nothing else of this process's inherited.
import type { ChildProcess } from "node:child_process";
import type { SpawnCommandProcessOptions } from "./_host-model.js";
import { IPC_CHANNEL_ENV, IPC_CHANNEL_FD } from "./_limits.js";

let devNull: number | undefined;

/**
 * The stdio array of a spawn in which every listed descriptor above the
 * given ones is `/dev/null`: the only way, without a launcher, to keep an
 * inherited descriptor of this process out of a child.
 */
export function shadowedStdio<T>(
  base: readonly T[],
  shadowFds: readonly number[],
): (T | number | "ignore")[] {
  const out: (T | number | "ignore")[] = [...base];
  const extra = shadowFds.filter((fd) => fd >= base.length);
  if (extra.length === 0) return out;
  devNull ??= process.getBuiltinModule("node:fs").openSync("/dev/null", "r+");
  const top = Math.max(...extra);
  while (out.length <= top) out.push("ignore");
  for (const fd of extra) out[fd] = devNull;
  return out;
}

/**
 * Spawns the command's program (never through a shell) with a pipe on fd 3
 * for the channel and, when it is started held, one on fd 4 for its hold.
 */
export function spawnChild(options: SpawnCommandProcessOptions): ChildProcess {
  const stdio = options.stdio ?? ["ignore", "pipe", "pipe"];
  const env = { ...(options.env ?? process.env), [IPC_CHANNEL_ENV]: String(IPC_CHANNEL_FD) };
  // Loaded on first use so that a command process, which imports this package
  // for its runtime only, never pays for child_process at startup.
  const { spawn } = process.getBuiltinModule("node:child_process");
  return spawn(options.program, options.args ?? [], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env,
    stdio: shadowedStdio(
      options.held === true
        ? [stdio[0], stdio[1], stdio[2], "pipe", "pipe"]
        : [stdio[0], stdio[1], stdio[2], "pipe"],
      options.shadowFds ?? [],
    ),
    detached: options.detached ?? false,
    shell: false,
    windowsHide: true,
  });
}
