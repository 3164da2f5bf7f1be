import { readFileSync } from "node:fs";
import { locateTrustedProgram } from "./_trusted.js";

/**
 * Where a process's start time is read, which with its pid names one
 * process for good (a reused pid has another start time):
 *
 * - `proc` (Linux): field 22 of `/proc/<pid>/stat`, in clock ticks since boot;
 * - `ps` (any POSIX system): `ps -o lstart=`, to the second, from a `ps`
 *   owned by root at a fixed location. A pid reused within the same second
 *   would pass for the first process: the cost of having no `/proc`.
 *
 * @example
 * const table: ProcessTable = "ps";
 */
export type ProcessTable = "proc" | "ps";

/** The table of this system: `/proc` where Linux has it, `ps` elsewhere. */
export const SYSTEM_PROCESS_TABLE: ProcessTable = process.platform === "linux" ? "proc" : "ps";

const PS_CANDIDATES = ["/bin/ps", "/usr/bin/ps"];
/** The environment `ps` runs in, so that every reader prints a start time alike. */
export const PS_ENVIRONMENT = { LC_ALL: "C", TZ: "UTC" } as const;

let ps: string | null | undefined;

/** The trusted `ps` (by location and ownership, never PATH), or `null` without one. */
export function trustedPs(): string | null {
  if (ps === undefined) {
    const found = locateTrustedProgram(PS_CANDIDATES, process.getuid?.() ?? -1, "ps");
    ps = found.ok ? found.path : null;
  }
  return ps;
}

/**
 * The start time of process `pid` as `table` reads it, or `null` when it is
 * gone or cannot be read.
 */
export function processStartTime(
  pid: number,
  table: ProcessTable = SYSTEM_PROCESS_TABLE,
): string | null {
  if (table === "ps") return psStartTime(pid);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function psStartTime(pid: number): string | null {
  const program = trustedPs();
  if (program === null || !Number.isSafeInteger(pid) || pid <= 0) return null;
  const { spawnSync } = process.getBuiltinModule("node:child_process");
  const r = spawnSync(program, ["-o", "lstart=", "-p", String(pid)], {
    env: PS_ENVIRONMENT,
    encoding: "utf8",
    timeout: 5_000,
  });
  // Words joined by one space, as the watchdog's shell joins them.
  const words = r.status === 0 ? r.stdout.trim().split(/\s+/) : [];
  return words.length >= 5 ? words.join(" ") : null;
}

/**
 * Kills, with SIGKILL, the process and (when it leads it) its process group,
 * but only while `pid` still names the process that started at `startTime`.
 * Returns whether it did.
 */
export function killTree(
  pid: number,
  startTime: string,
  pgid: number,
  table: ProcessTable = SYSTEM_PROCESS_TABLE,
): boolean {
  if (processStartTime(pid, table) !== startTime) return false;
  for (const target of pgid === pid ? [-pid, pid] : [pid])
    try {
      process.kill(target, "SIGKILL");
    } catch {}
  return true;
}
