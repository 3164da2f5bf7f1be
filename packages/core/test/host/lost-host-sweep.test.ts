import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { StateDirectory } from "@rukh/profile";
import { processesWith } from "@rukh/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { LOST_HOST_SWEEP_MS } from "../../src/contract/_limits.js";
import { repeatEvery } from "../../src/host/_lost-host-sweep.js";
import { type JournalRecord, readJournal } from "../../src/index.js";
import { WATCHDOG_NAME } from "../../src/process/_watchdog.js";
import { cleanup, makeState, openCore } from "../_helpers.js";

// Lost calls found by the living: a host that lives on a state directory
// finishes, while it serves, the calls of a host that died there, as the
// next start would. The bound is a few seconds: the sweep's period, then
// room for a loaded machine.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BOUND_MS = LOST_HOST_SWEEP_MS + 8_000;
const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;

/** Commands a test left running when it failed, ended after it. */
const leftovers = new Set<number>();
afterEach(() => {
  for (const pid of leftovers)
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  leftovers.clear();
});

/** Whether `pid` is a process that still runs (a zombie does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The records of one call, as the journal's files hold them now. */
async function recordsOf(root: string, command: string): Promise<JournalRecord[]> {
  const all = (await readJournal(root)).records;
  const start = all.find((r) => r.type === "start" && r.command === command);
  return start === undefined ? [] : all.filter((r) => r.invocationId === start.invocationId);
}

/** Starts a host in a child process that runs `fx.main/clingy`; resolves once its command runs. */
async function startLostHost(root: string, pidFile: string, locks: string) {
  const host: ChildProcess = spawn(
    process.execPath,
    [fixture("lost-host.mjs"), root, pidFile, locks],
    { stdio: "ignore" },
  );
  const exited = new Promise((r) => host.once("exit", r));
  const pid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : 0);
  for (let i = 0; i < 500 && pid() === 0; i++) await sleep(20);
  expect(pid()).toBeGreaterThan(0);
  leftovers.add(pid());
  // Its start and process records are flushed before the command runs.
  expect((await recordsOf(root, "fx.main/clingy")).map((r) => r.type)).toEqual([
    "start",
    "process",
  ]);
  // Without a pid namespace a watchdog would kill the command when the host
  // dies; with it gone too, the command outlives its host.
  const watchdog = `${WATCHDOG_NAME}\0${pid()}\0`;
  for (let i = 0; i < 100 && processesWith(watchdog).length === 0; i++) await sleep(20);
  return {
    command: pid(),
    kill: async () => {
      for (const w of processesWith(watchdog)) process.kill(w, "SIGKILL");
      host.kill("SIGKILL");
      await exited;
    },
  };
}

describe("the sweep for lost hosts", () => {
  it.each(["abstract-socket", "socket-file"] as const)(
    "finalizes, at a host that lives on, the call of a host killed with SIGKILL, and kills its leftover (%s locks)",
    async (locks) => {
      const { root, work } = await makeState();
      const state = new StateDirectory(root, { locks });
      try {
        const survivor = await openCore(state, "default", { sweepLostHosts: true });
        expect(survivor.recovered).toEqual([]);
        const lost = await startLostHost(root, join(work, "clingy.pid"), locks);
        // While the other host lives, its call is its own: sweeps pass it by.
        await sleep(2 * LOST_HOST_SWEEP_MS + 500);
        expect((await recordsOf(root, "fx.main/clingy")).map((r) => r.type)).toEqual([
          "start",
          "process",
        ]);
        expect(running(lost.command)).toBe(true);

        await lost.kill();
        const killedAt = Date.now();
        let records = await recordsOf(root, "fx.main/clingy");
        while (records.length < 3 && Date.now() - killedAt < BOUND_MS) {
          await sleep(50);
          records = await recordsOf(root, "fx.main/clingy");
        }
        const took = Date.now() - killedAt;
        console.log(`the lost call was finalized ${took} ms after its host was killed`);
        expect(took).toBeLessThan(BOUND_MS);
        const [start, , final] = records;
        expect(
          records.map((r) => (r.type === "final" ? `${r.outcome}/${r.reason}` : r.type)),
        ).toEqual(["start", "process", "execution_failed/host_lost"]);
        expect(final!.host).not.toBe(start!.host);
        // Its command outlived its host until the sweep killed it.
        for (let i = 0; i < 100 && running(lost.command); i++) await sleep(20);
        expect(running(lost.command)).toBe(false);
        // Logged as start-up recovery logs it.
        const log = readFileSync(join(root, "logs", "diagnostics.log"), "utf8")
          .split("\n")
          .filter((l) => l.includes(start!.invocationId) && l.includes("host_lost"))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(log).toEqual([
          expect.objectContaining({ lostHost: start!.host, killedLeftover: true }),
        ]);
        await survivor.close();
        // Once, and never again.
        await sleep(LOST_HOST_SWEEP_MS);
        expect((await readJournal(root)).records.filter((r) => r.type === "final")).toHaveLength(1);
      } finally {
        cleanup(work);
      }
    },
    60_000,
  );

  it("sweeps no more once its host is closed", async () => {
    const { root, state, work } = await makeState();
    try {
      const lost = await startLostHost(root, join(work, "clingy.pid"), state.locks);
      const closed = await openCore(state, "default", { sweepLostHosts: true });
      await closed.close();
      await lost.kill();
      await sleep(2 * LOST_HOST_SWEEP_MS + 500);
      expect((await recordsOf(root, "fx.main/clingy")).map((r) => r.type)).toEqual([
        "start",
        "process",
      ]);
      expect(running(lost.command)).toBe(true);
      // The next start finishes it.
      const next = await openCore(state);
      expect(next.recovered).toHaveLength(1);
      await next.close();
      for (let i = 0; i < 100 && running(lost.command); i++) await sleep(20);
      expect(running(lost.command)).toBe(false);
    } finally {
      cleanup(work);
    }
  }, 30_000);

  it("never keeps its process alive", async () => {
    const { root, work } = await makeState();
    try {
      // A host opened and never closed: the process still ends when it has nothing else to do.
      const script = `import { StateDirectory } from "@rukh/profile";
import { createInvocationCore } from "./dist/index.js";
await createInvocationCore({ state: new StateDirectory(process.argv[1]), sweepLostHosts: true,
  binding: { subject: "a", actor: "b", taskAuthorityRef: "c", preset: "default" } });
process.stdout.write("opened\\n");`;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script, root], {
        cwd: new URL("../..", import.meta.url).pathname,
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString("utf8");
      });
      const code = await new Promise<number | null | "alive">((r) => {
        const t = setTimeout(() => r("alive"), 4 * LOST_HOST_SWEEP_MS + 5_000);
        child.once("exit", (c) => {
          clearTimeout(t);
          r(c);
        });
      });
      if (code === "alive") child.kill("SIGKILL");
      expect(out).toBe("opened\n");
      expect(code).toBe(0);
    } finally {
      cleanup(work);
    }
  }, 30_000);

  it("runs one sweep at a time, and none once stopped", async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    let ended = 0;
    const repeat = repeatEvery(20, async () => {
      running++;
      runs++;
      most = Math.max(most, running);
      // Three periods long: a timer that did not wait for it would start more.
      await sleep(60);
      running--;
      ended++;
    });
    await sleep(400);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
    await repeat.stop();
    // Stopping waits for the run under way.
    expect(ended).toBe(runs);
    await sleep(200);
    expect(runs).toBe(ended);
  });

  it("goes on after a sweep that fails", async () => {
    let runs = 0;
    const repeat = repeatEvery(10, async () => {
      runs++;
      throw new Error("a sweep that fails");
    });
    await sleep(200);
    await repeat.stop();
    expect(runs).toBeGreaterThanOrEqual(2);
  });
});
