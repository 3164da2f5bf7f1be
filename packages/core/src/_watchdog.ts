import type { ChildProcess } from "node:child_process";

/**
 * The watchdog's script. It waits on a pipe from the host: "done" means the
 * call ended and there is nothing to do; end of file means the host is gone,
 * so it kills the target — the command's process group (a negative number)
 * or its process — but only while the process still has the start time the
 * host saw, so a reused pid is never signalled.
 */
const SCRIPT = `pid=$1 start=$2 target=$3
IFS= read -r line
[ "$line" = done ] && exit 0
IFS= read -r stat < "/proc/$pid/stat" || exit 0
rest=\${stat##*) }
set -f
set -- $rest
[ "\${20}" = "$start" ] && kill -9 "$target"
exit 0`;

/** Marks the watchdog's command line, so a person (or a test) can tell it from the command. */
export const WATCHDOG_NAME = "rukh-watchdog";

/** A running watchdog; {@link release} tells it the call ended normally. */
export interface Watchdog {
  release(): void;
}

/**
 * Starts, in a session of its own, a watchdog that outlives this host: if the
 * host dies before releasing it, it kills the command's process group (or,
 * when the command does not lead one, the command). It is what a host-trusted
 * command without a pid namespace gets, so that a crashed host still leaves
 * nothing running; descendants that left the group escape it.
 */
export function startWatchdog(
  sh: string,
  pid: number,
  startTime: string,
  leadsGroup: boolean,
): Watchdog {
  const { spawn } = process.getBuiltinModule("node:child_process");
  const child: ChildProcess = spawn(
    sh,
    ["-c", SCRIPT, WATCHDOG_NAME, String(pid), startTime, leadsGroup ? `-${pid}` : String(pid)],
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
