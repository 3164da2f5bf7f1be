import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describeConfinement, readJournal } from "@rukh/core";
import { processesWith } from "@rukh/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, cleanup, MAIN_COMMANDS, makeExtension, makeState, openCore } from "./_helpers.js";

// Processes started ahead of a call (`readyProcesses`, what MCP hosts use):
// a repeated launch's next process waits on its channel for the next call,
// each process still runs one invocation, a call of another launch never
// gets one, and nothing outlives the host.
let own: Awaited<ReturnType<typeof makeState>>;
beforeAll(async () => {
  own = await makeState();
});
afterAll(() => cleanup(own.work));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uptimeOf = (outcome: { commandResult?: unknown }) =>
  Number((outcome.commandResult as { text: string }).text);
/** The command processes of this state directory now alive (bubblewrap and node). */
const alive = () => processesWith(`${own.root}/store/`);

/** Whether `ok()` holds within `ms`. */
async function until(ok: () => boolean, ms = 5_000): Promise<boolean> {
  for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await sleep(20);
  return ok();
}

// Only a launch in a pid namespace (which dies with its host) is kept ready.
const tree = (await describeConfinement()).hostTrustedTree;
if (tree.mechanism !== "pid-namespace")
  console.warn(
    `ready-process cases skipped: host-trusted commands get no pid namespace here: ${tree.detail}`,
  );

describe.skipIf(tree.mechanism !== "pid-namespace")("ready processes", () => {
  it("run a repeated call in a process started before it, one invocation per process", async () => {
    const c = await openCore(own.state, "default", { readyProcesses: 2 });
    try {
      for (let i = 0; i < 2; i++)
        expect(await c.invoke(call("fx.main/uptime"))).toMatchObject({ outcome: "succeeded" });
      // The second call's launch repeated the first: the next process is started and waits.
      expect(await until(() => alive().length > 0)).toBe(true);
      await sleep(1_500);
      const third = await c.invoke(call("fx.main/uptime"));
      expect(third).toMatchObject({ outcome: "succeeded" });
      expect(uptimeOf(third)).toBeGreaterThanOrEqual(1_400);
      const { records } = await readJournal(own.root);
      const processes = records.filter((r) => r.type === "process");
      const identities = processes.map((r) => `${r.pid}@${r.startTime}`);
      expect(new Set(identities).size).toBe(identities.length);
    } finally {
      await c.close();
    }
    // Closing the host ends the process it kept ready.
    expect(await until(() => alive().length === 0)).toBe(true);
  });

  it("end with their host when it is killed with kill -9", async () => {
    const flag = join(own.work, "ready-host.flag");
    const host = spawn(
      process.execPath,
      [new URL("./fixtures/ready-host.mjs", import.meta.url).pathname, own.root, flag],
      { stdio: "ignore" },
    );
    const exited = new Promise((r) => host.once("exit", r));
    try {
      expect(await until(() => existsSync(flag), 20_000)).toBe(true);
      expect(await until(() => alive().length > 0)).toBe(true);
    } finally {
      host.kill("SIGKILL");
      await exited;
    }
    expect(await until(() => alive().length === 0)).toBe(true);
  });

  it("never hand a process of one release to a call of the next", async () => {
    const c = await openCore(own.state, "default", { readyProcesses: 2 });
    try {
      for (let i = 0; i < 2; i++)
        expect(await c.invoke(call("fx.main/version"))).toMatchObject({
          commandResult: { text: "1.0.0" },
        });
      expect(await until(() => alive().length > 0)).toBe(true);
      await own.state.install(await makeExtension(own.work, "fx.main", "2.0.0", MAIN_COMMANDS));
      expect(await c.invoke(call("fx.main/version"))).toMatchObject({
        outcome: "succeeded",
        commandResult: { text: "2.0.0" },
      });
    } finally {
      await c.close();
    }
    expect(await until(() => alive().length === 0)).toBe(true);
  });
});

describe("without ready processes", () => {
  it("a host that does not ask for them (a CLI call) keeps none", async () => {
    const c = await openCore(own.state);
    try {
      for (let i = 0; i < 3; i++) {
        const r = await c.invoke(call("fx.main/uptime"));
        expect(r).toMatchObject({ outcome: "succeeded" });
        expect(uptimeOf(r)).toBeLessThan(1_400);
      }
      expect(alive()).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
