import type { ChildProcess } from "node:child_process";
import { type ProcessTable, PS_ENVIRONMENT, SYSTEM_PROCESS_TABLE, trustedPs } from "./_tree.js";

/**
 * The watchdog's scripts, one per process table. Each waits on a pipe from
 * the host: "done" means the call ended and there is nothing to do; end of
 * file means the host is gone, so it kills the target — the command's
 * process group (a negative number) or its process — but only while the
 * process still has the start time the host saw, so a reused pid is never
 * signalled. The start time is read as {@link processStartTime} reads it.
 */
const SCRIPTS: Record<ProcessTable, string> = {
  proc: `pid=$1 start=$2 target=$3
IFS= read -r line
[ "$line" = done ] && exit 0
IFS= read -r stat < "/proc/$pid/stat" || exit 0
rest=\${stat##*) }
set -f
set -- $rest
[ "\${20}" = "$start" ] && kill -9 "$target"
exit 0`,
  ps: `pid=$1 start=$2 target=$3 ps=$4
IFS= read -r line
[ "$line" = done ] && exit 0
now=$(LC_ALL=${PS_ENVIRONMENT.LC_ALL} TZ=${PS_ENVIRONMENT.TZ} "$ps" -o lstart= -p "$pid") || exit 0
set -f
set -- $now
[ "$*" = "$start" ] && kill -9 "$target"
exit 0`,
};

/** Marks the watchdog's command line, so a person (or a test) can tell it from the command. */
export const WATCHDOG_NAME = "rukh-watchdog";

/** A running watchdog; {@link release} tells it the call ended normally. */
export interface Watchdog {
  release(): void;
}

/** What {@link startWatchdog} watches, and with what. */
export interface WatchdogOptions {
  /** A trusted `/bin/sh`. */
  readonly shell: string;
  readonly pid: number;
  /** The command's start time, as `table` reads it. */
  readonly startTime: string;
  /** Whether the command leads its process group (then the group is killed). */
  readonly leadsGroup: boolean;
  /** Default {@link SYSTEM_PROCESS_TABLE}; `ps` needs a trusted `ps`. */
  readonly table?: ProcessTable;
}

/**
 * Starts, in a session of its own, a watchdog that outlives this host: if the
 * host dies before releasing it, it kills the command's process group (or,
 * when the command does not lead one, the command). It is what a host-trusted
 * command without a pid namespace gets, so that a crashed host still leaves
 * nothing running; descendants that left the group escape it. `null` when
 * the process table cannot be read here (no trusted `ps`).
 */
export function startWatchdog(options: WatchdogOptions): Watchdog | null {
  const { shell, pid, startTime, leadsGroup } = options;
  const table = options.table ?? SYSTEM_PROCESS_TABLE;
  const ps = table === "ps" ? trustedPs() : null;
  if (table === "ps" && ps === null) return null;
  const { spawn } = process.getBuiltinModule("node:child_process");
  const child: ChildProcess = spawn(
    shell,
    [
      "-c",
      SCRIPTS[table],
      WATCHDOG_NAME,
      String(pid),
      startTime,
      leadsGroup ? `-${pid}` : String(pid),
      ...(ps === null ? [] : [ps]),
    ],
    { stdio: ["pipe", "ignore", "ignore"], detached: true, env: {} },
  );
  child.unref();
  child.stdin?.on("error", () => {});
  // Neither the watchdog nor its pipe keeps this host's event loop alive.
  (child.stdin as unknown as { unref(): void } | null)?.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      child.stdin?.end("done\n");
    },
  };
}
