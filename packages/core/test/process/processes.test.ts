import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  type DescriptorListing,
  inheritableDescriptors,
  SYSTEM_DESCRIPTOR_LISTING,
} from "../../src/process/_fds.js";
import {
  killTree,
  type ProcessTable,
  processStartTime,
  SYSTEM_PROCESS_TABLE,
  trustedPs,
} from "../../src/process/_tree.js";

// The same tables for the two ways of knowing a process: /proc, which Linux
// has, and the portable `ps` and `/dev/fd` every POSIX system has. A pid
// with its start time names one process; nothing is signalled once that
// pid names another; a watchdog whose host is killed with SIGKILL kills
// the command; inherited descriptors are found.
const dist = (file: string) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) c.kill("SIGKILL");
  children.clear();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sleeper(): { pid: number; exited: Promise<unknown> } {
  const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  children.add(child);
  return { pid: child.pid!, exited: new Promise((r) => child.once("exit", r)) };
}

it("reads /proc on Linux and ps elsewhere", () => {
  expect(SYSTEM_PROCESS_TABLE).toBe(process.platform === "linux" ? "proc" : "ps");
  expect(SYSTEM_DESCRIPTOR_LISTING).toBe(process.platform === "linux" ? "proc" : "dev-fd");
});

describe.each(["proc", "ps"] as const)("the %s process table", (table: ProcessTable) => {
  const alive = (pid: number) => processStartTime(pid, table) !== null;

  it("is readable here", () => {
    if (table === "ps") expect(trustedPs()).toMatch(/\/ps$/);
    expect(processStartTime(process.pid, table)).not.toBeNull();
  });

  it("kills a process (and the group it leads) only while its start time still matches", async () => {
    const { pid, exited } = sleeper();
    const started = processStartTime(pid, table);
    expect(started).toMatch(table === "proc" ? /^[0-9]+$/ : /^[A-Z][a-z]{2} [A-Z][a-z]{2} +\d+ /);
    // A reused pid has another start time: it is left alone.
    expect(killTree(pid, `${started}0`, pid, table)).toBe(false);
    await sleep(100);
    expect(alive(pid)).toBe(true);
    expect(killTree(pid, started!, pid, table)).toBe(true);
    await exited;
    expect(alive(pid)).toBe(false);
  });

  it("tells the start times of two processes apart, and a process's twice alike", async () => {
    const a = sleeper();
    // `ps` tells seconds, /proc clock ticks: the second process starts in another one.
    await sleep(table === "ps" ? 1_100 : 50);
    const b = sleeper();
    expect(processStartTime(a.pid, table)).toBe(processStartTime(a.pid, table));
    expect(processStartTime(a.pid, table)).not.toBe(processStartTime(b.pid, table));
  });

  it("reads no start time for a pid that does not exist", () => {
    expect(processStartTime(2 ** 22 + 1, table)).toBeNull();
  });

  /**
   * A host (a real process) that starts a watchdog for `pid` and says so;
   * `startTime` defaults to the process's real one.
   */
  async function hostWatching(pid: number, startTime?: string) {
    const host = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { startWatchdog } from ${JSON.stringify(dist("process/_watchdog.js"))};
import { processStartTime } from ${JSON.stringify(dist("process/_tree.js"))};
const dog = startWatchdog({ shell: "/bin/sh", pid: ${pid}, startTime: ${JSON.stringify(startTime ?? null)} ?? processStartTime(${pid}, "${table}"), leadsGroup: true, table: "${table}" });
process.stdout.write(dog === null ? "none\\n" : "watching\\n");
process.stdin.on("data", () => { dog.release(); process.stdout.write("released\\n"); });
setInterval(() => {}, 60_000);`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    children.add(host);
    const lines: string[] = [];
    host.stdout?.on("data", (d: Buffer) => lines.push(...d.toString("utf8").trim().split("\n")));
    for (let i = 0; i < 100 && lines.length === 0; i++) await sleep(20);
    expect(lines).toEqual(["watching"]);
    return { host, lines };
  }

  it("has a watchdog kill the command's group when its host is killed with SIGKILL", async () => {
    const command = sleeper();
    const { host } = await hostWatching(command.pid);
    host.kill("SIGKILL");
    await Promise.race([command.exited, sleep(3_000)]);
    expect(alive(command.pid)).toBe(false);
  });

  it("has a released watchdog, or one whose process has another start time, leave it alone", async () => {
    const released = sleeper();
    const a = await hostWatching(released.pid);
    a.host.stdin?.write("release\n");
    for (let i = 0; i < 100 && a.lines.length < 2; i++) await sleep(20);
    a.host.kill("SIGKILL");
    const other = sleeper();
    const b = await hostWatching(other.pid, table === "proc" ? "1" : "Thu Jan 1 00:00:00 1970");
    b.host.kill("SIGKILL");
    await sleep(1_000);
    expect(alive(released.pid)).toBe(true);
    expect(alive(other.pid)).toBe(true);
  });
});

describe.each(["proc", "dev-fd"] as const)(
  "the %s descriptor listing",
  (listing: DescriptorListing) => {
    it("names a descriptor a child would inherit", async () => {
      // Node opens its own descriptors (and marks the lowest inherited ones) close-on-exec;
      // a descriptor handed on higher up stays open.
      const child = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { inheritableDescriptors } from ${JSON.stringify(dist("process/_fds.js"))};
process.stdout.write(JSON.stringify(inheritableDescriptors("${listing}")));`,
        ],
        { stdio: ["ignore", "pipe", "inherit", ...Array(47).fill("ignore"), "pipe"] },
      );
      children.add(child);
      let out = "";
      child.stdout?.on("data", (d: Buffer) => {
        out += d.toString("utf8");
      });
      await new Promise((r) => child.once("exit", r));
      expect(JSON.parse(out)).toContain(50);
    });

    it("lists only descriptors above 2", () => {
      const fd = openSync("/dev/null", "r");
      try {
        const found = inheritableDescriptors(listing);
        expect(found.every((f) => f > 2)).toBe(true);
        // Node opened this one with close-on-exec: only a listing without flags names it.
        expect(found.includes(fd)).toBe(listing === "dev-fd");
      } finally {
        closeSync(fd);
      }
    });
  },
);
