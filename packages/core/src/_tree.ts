import { readFileSync } from "node:fs";

/**
 * The kernel's start time of a process (field 22 of `/proc/<pid>/stat`, in
 * clock ticks since boot), or `null` when it is gone or cannot be read. With
 * the pid it names one process for good: a reused pid has another start time.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Kills, with SIGKILL, the process and (when it leads it) its process group,
 * but only while `pid` still names the process that started at `startTime`.
 * Returns whether it did.
 */
export function killTree(pid: number, startTime: string, pgid: number): boolean {
  if (processStartTime(pid) !== startTime) return false;
  for (const target of pgid === pid ? [-pid, pid] : [pid])
    try {
      process.kill(target, "SIGKILL");
    } catch {}
  return true;
}
