import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describeConfinement, readJournal } from "@rukh/core";
import { commandsDescriptor, processesWith } from "@rukh/testkit";
import { makeExtension } from "@rukh/testkit/extension";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  cleanup,
  MAIN_COMMANDS,
  makeState,
  NOBODY,
  nobodyCannotRun,
  openCore,
  PROGRAMS,
} from "../_helpers.js";

// Processes started ahead of a call (`readyProcesses`, what MCP hosts use).
// A ready process is Node and the runtime's hold bootstrap: the command's
// program is loaded only once an admitted, journaled call is handed the
// process, after its package passed its check there. Ready processes are
// counted whatever they do, kept per caller and revision, end within a
// second of a publication, and never outlive their host. Each case runs in
// a host process of its own, as root and as uid 65534.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isRoot = process.getuid?.() === 0;
const driverFile = new URL("../fixtures/ready-driver.mjs", import.meta.url).pathname;

/** Whether `ok()` holds within `ms`. */
async function until(ok: () => boolean, ms = 5_000): Promise<boolean> {
  for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await sleep(20);
  return ok();
}

// Only a launch in a pid namespace (which dies with its host) is kept ready.
const tree = (await describeConfinement()).hostTrustedTree;
const noTree =
  tree.mechanism === "pid-namespace"
    ? undefined
    : `host-trusted commands get no pid namespace here: ${tree.detail}`;

const modes = [
  { mode: "as its own user", uid: process.getuid?.() ?? 0, skip: noTree },
  {
    mode: `as uid ${NOBODY}`,
    uid: NOBODY,
    skip: noTree ?? (isRoot ? nobodyCannotRun() : "the suite does not run as root"),
  },
];

interface Step {
  readonly call?: string;
  readonly values?: Record<string, unknown>;
  readonly subject?: string;
  readonly sleep?: number;
  readonly mark?: string;
  readonly apply?: object;
}
interface Result {
  readonly call: string;
  readonly outcome: string;
  readonly reason: string;
  readonly text?: string;
  readonly ms: number;
}

for (const m of modes) {
  if (m.skip !== undefined) console.warn(`ready processes (${m.mode}) skipped: ${m.skip}`);
  describe.skipIf(m.skip !== undefined)(`ready processes, host ${m.mode}`, () => {
    let own: Awaited<ReturnType<typeof makeState>>;
    let starts: string;
    beforeAll(async () => {
      own = await makeState();
      starts = join(own.work, "starts.log");
      writeFileSync(starts, "");
      if (m.uid !== process.getuid?.()) spawnSync("chown", ["-R", `${m.uid}:${m.uid}`, own.work]);
      chmodSync(own.work, 0o755);
    });
    afterAll(() => cleanup(own.work));

    /** The command processes (node, outside any namespace) of this state directory now alive. */
    const alive = () => processesWith(`${own.root}/store/`, "node");
    const startLines = () => readFileSync(starts, "utf8").split("\n").filter(Boolean);

    /**
     * Runs `steps` in a host process as this mode's user (ready processes:
     * `ready`); `at(mark)` runs when the host reaches each mark.
     */
    async function host(
      steps: Step[],
      options: { ready?: number; env?: Record<string, string>; preset?: string } = {},
      at: (mark: string) => Promise<void> | void = () => {},
    ): Promise<Result[]> {
      const argv = [
        driverFile,
        own.root,
        JSON.stringify(steps),
        JSON.stringify({ ready: options.ready ?? 4, env: options.env, preset: options.preset }),
      ];
      const child: ChildProcess =
        m.uid === process.getuid?.()
          ? spawn(process.execPath, argv, { stdio: ["pipe", "pipe", "inherit"] })
          : spawn(
              "setpriv",
              [`--reuid=${m.uid}`, `--regid=${m.uid}`, "--clear-groups", process.execPath, ...argv],
              { stdio: ["pipe", "pipe", "inherit"] },
            );
      const results: Result[] = [];
      let buffered = "";
      let marks = Promise.resolve();
      child.stdout!.on("data", (d: Buffer) => {
        buffered += d.toString("utf8");
        let nl = buffered.indexOf("\n");
        for (; nl !== -1; nl = buffered.indexOf("\n")) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.startsWith("RESULT ")) results.push(JSON.parse(line.slice(7)));
          else if (line.startsWith("MARK "))
            marks = marks.then(async () => {
              await at(line.slice(5));
              child.stdin!.write("go\n");
            });
        }
      });
      const code = await new Promise((r) => child.once("close", r));
      await marks;
      expect(code).toBe(0);
      return results;
    }
    const env = (extra: Record<string, string> = {}) => ({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      RUKH_TEST_STARTS: starts,
      ...extra,
    });
    const uptime = (r: Result | undefined) => Number(r?.text);

    it("run no extension code outside a call: one program start per journaled call", async () => {
      writeFileSync(starts, "");
      const before = new Set((await readJournal(own.root)).records.map((r) => r.invocationId));
      let waiting = 0;
      const results = await host(
        [
          { call: "fx.main/uptime" },
          { call: "fx.main/uptime" },
          { call: "fx.main/uptime" },
          { sleep: 1_500 },
          { mark: "waiting" },
          { call: "fx.main/uptime" },
          { call: "fx.main/uptime" },
          { sleep: 500 },
        ],
        { env: env() },
        () => {
          waiting = alive().length;
        },
      );
      expect(results.map((r) => r.outcome)).toEqual(Array(5).fill("succeeded"));
      // Processes were kept ready, and the later calls were served by them.
      expect(waiting).toBeGreaterThan(0);
      expect(uptime(results[3])).toBeGreaterThanOrEqual(1_400);
      const journaled = (await readJournal(own.root)).records.filter(
        (r) => r.type === "process" && !before.has(r.invocationId),
      );
      expect(journaled).toHaveLength(5);
      // The program started once per journaled call's process, and no more (pids differ: a
      // command sees its pid namespace's).
      expect(startLines()).toHaveLength(journaled.length);
      expect(await until(() => alive().length === 0)).toBe(true);
    });

    it("count toward their cap whatever their program would do, and none lingers", async () => {
      // The program's top level drops its channel after 300 ms and lives on: it must never run unasked.
      let most = -1;
      const results = await host(
        [
          ...Array.from({ length: 12 }, () => [{ call: "fx.main/uptime" }, { sleep: 150 }]).flat(),
          { sleep: 600 },
          { mark: "after" },
        ],
        { ready: 4, env: env({ RUKH_TEST_LEAK: "1" }) },
        () => {
          most = alive().length;
        },
      );
      expect(most).toBeLessThanOrEqual(4);
      expect(results.every((r) => r.outcome === "succeeded")).toBe(true);
      expect(await until(() => alive().length === 0)).toBe(true);
    });

    it("are kept for one caller: another's first call starts its own process", async () => {
      const results = await host(
        [
          { call: "fx.main/uptime", subject: "alice" },
          { call: "fx.main/uptime", subject: "alice" },
          { sleep: 1_500 },
          { call: "fx.main/uptime", subject: "bob" },
          { call: "fx.main/uptime", subject: "alice" },
        ],
        { env: env() },
      );
      // Bob's process started within his call (it is no older than the call), however slow
      // the machine; Alice's was started before the pause and waited through it.
      expect(uptime(results[2])).toBeLessThanOrEqual(results[2]?.ms ?? -1);
      expect(uptime(results[3])).toBeGreaterThanOrEqual(1_400);
      expect(uptime(results[3])).toBeGreaterThan(results[3]?.ms ?? Infinity);
    });

    it("end a call at once when its channel closes, breaks or never opens, and free its slot", async () => {
      // A preset of one slot and a 30 s deadline: each failing call, served by a ready
      // process, ends within the second (a missing hello: past the 5 s handshake limit),
      // and the next call is admitted right after it.
      const mute = join(own.work, "mute");
      const ready: number[] = [];
      const served = (bad: Step): Step[] => [
        { sleep: 1_500 },
        { mark: "ready" },
        bad,
        { mark: "after" },
        { call: "fx.main/uptime" },
      ];
      const results = await host(
        [
          { call: "fx.main/uptime" },
          { call: "fx.main/uptime" },
          ...served({ call: "fx.main/drop_channel" }),
          ...served({ call: "fx.main/garble" }),
          ...served({ call: "fx.main/uptime" }),
        ],
        { env: env({ RUKH_TEST_MUTE: mute }), preset: "single" },
        (mark) => {
          if (mark === "ready") {
            ready.push(alive().length);
            // The third failing call's program, loaded at its hand-over, finds the file.
            if (ready.length === 3) writeFileSync(mute, "");
          } else rmSync(mute, { force: true });
        },
      );
      expect(ready.every((n) => n > 0)).toBe(true);
      const failing = [results[2], results[4], results[6]];
      console.info(`ready: finals after ${failing.map((r) => r?.ms).join(", ")} ms`);
      for (const r of failing)
        expect(r).toMatchObject({ outcome: "execution_failed", reason: "protocol_error" });
      // Far inside the 30 s deadline: the first two well before the 5 s handshake limit, the
      // third at it (bounds wide enough for a loaded machine).
      expect(failing[0]!.ms).toBeLessThan(4_000);
      expect(failing[1]!.ms).toBeLessThan(4_000);
      expect(failing[2]!.ms).toBeGreaterThanOrEqual(5_000);
      expect(failing[2]!.ms).toBeLessThan(12_000);
      for (const r of [results[3], results[5], results[7]]) expect(r?.outcome).toBe("succeeded");
      expect(await until(() => alive().length === 0)).toBe(true);
    });

    it.each([
      ["disables the extension", { op: "disable", id: "fx.main" }],
      ["removes another extension", { op: "remove", id: "fx.hidden" }],
    ])("end within a second when a publication %s", async (_what, change) => {
      let ready = 0;
      let left = -1;
      await host(
        [
          { call: "fx.main/uptime" },
          { call: "fx.main/uptime" },
          { sleep: 800 },
          { mark: "ready" },
          { apply: change },
          { sleep: 1_000 },
          { mark: "after" },
        ],
        { env: env() },
        (mark) => {
          if (mark === "ready") ready = alive().length;
          else left = alive().length;
        },
      );
      expect(ready).toBeGreaterThan(0);
      expect(left).toBe(0);
      // The next case starts from the same state: the change is undone.
      const state = own.state;
      if (change.op === "disable") await state.enable("fx.main");
      else
        await state.install(
          await makeExtension(
            own.work,
            commandsDescriptor("fx.hidden", "1.0.0", [{ id: "secret" }]),
            PROGRAMS,
          ),
        );
      if (m.uid !== process.getuid?.()) spawnSync("chown", ["-R", `${m.uid}:${m.uid}`, own.work]);
    });

    it("check the package at hand-over: a program swapped after a call's start runs for no call", async () => {
      writeFileSync(starts, "");
      const digest = (
        await own.state.readRevision((await own.state.activeRevisionId())!)
      ).extensions.find((e) => e.id === "fx.main")!.digest;
      const program = join(own.root, "store", digest, "bin", "commands.mjs");
      const original = readFileSync(program);
      const mode = statSync(program).mode;
      const evil = Buffer.concat([
        Buffer.from(
          'import { appendFileSync as evilMark } from "node:fs";\nevilMark(process.env.RUKH_TEST_STARTS, `evil ${process.pid}\\n`);\n',
        ),
        original,
      ]);
      // The second call's start record: the moment a swap slips past the admission check.
      const live = join(own.root, "journal", "live");
      let swapped = false;
      const watcher = setInterval(() => {
        if (swapped || !existsSync(live)) return;
        const text = readdirSync(live)
          .map((n) => readFileSync(join(live, n), "utf8"))
          .join("");
        if ((text.match(/"type":"start"/g) ?? []).length < 2) return;
        swapped = true;
        chmodSync(program, 0o644);
        writeFileSync(program, evil);
        setTimeout(() => {
          writeFileSync(program, original);
          chmodSync(program, mode);
        }, 1_500);
      }, 1);
      let results: Result[];
      try {
        // A journal of its own, so the count starts at this host's records.
        spawnSync("rm", ["-rf", join(own.root, "journal")]);
        results = await host(
          [
            { call: "fx.main/uptime" },
            { call: "fx.main/uptime" },
            { sleep: 2_500 },
            { call: "fx.main/uptime" },
            { call: "fx.main/uptime" },
          ],
          { env: env() },
        );
      } finally {
        clearInterval(watcher);
      }
      expect(swapped).toBe(true);
      expect(readFileSync(program)).toEqual(original);
      expect(startLines().filter((l) => l.startsWith("evil"))).toEqual([]);
      expect(results[1]).toMatchObject({ outcome: "rejected", reason: "store_corrupt" });
      expect(results[2]).toMatchObject({ outcome: "succeeded" });
      expect(results[3]).toMatchObject({ outcome: "succeeded" });
    });
  });
}

describe.skipIf(noTree !== undefined)("ready processes in this process", () => {
  let own: Awaited<ReturnType<typeof makeState>>;
  beforeAll(async () => {
    own = await makeState();
  });
  afterAll(() => cleanup(own.work));
  const alive = () => processesWith(`${own.root}/store/`, "node");

  it("end with their host when it is killed with kill -9", async () => {
    const flag = join(own.work, "ready-host.flag");
    const host = spawn(
      process.execPath,
      [new URL("../fixtures/ready-host.mjs", import.meta.url).pathname, own.root, flag],
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
    // Most end with bubblewrap's namespace at once. A spawn still in flight
    // (the host refills after each call) can lose that race: bubblewrap sets
    // its parent-death signal only after its exec, so one started just before
    // the kill outlives it. That process ends by itself when it reads its hold
    // pipe's end, which under a loaded machine waits for Node's whole start:
    // seconds, hence the long deadline. Nothing of the command runs either way.
    expect(await until(() => alive().length === 0, 30_000)).toBe(true);
  });

  it("never hand a process of one release to a call of the next", async () => {
    const c = await openCore(own.state, "default", { readyProcesses: 2 });
    try {
      for (let i = 0; i < 2; i++)
        expect(await c.invoke(call("fx.main/version"))).toMatchObject({
          commandResult: { text: "1.0.0" },
        });
      expect(await until(() => alive().length > 0)).toBe(true);
      await own.state.install(
        await makeExtension(
          own.work,
          commandsDescriptor("fx.main", "2.0.0", MAIN_COMMANDS),
          PROGRAMS,
        ),
      );
      expect(await c.invoke(call("fx.main/version"))).toMatchObject({
        outcome: "succeeded",
        commandResult: { text: "2.0.0" },
      });
    } finally {
      await c.close();
    }
    expect(await until(() => alive().length === 0)).toBe(true);
  });

  it("are not kept by a host that does not ask for them (a CLI call)", async () => {
    const c = await openCore(own.state);
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const r = await c.invoke(call("fx.main/uptime"));
        expect(r).toMatchObject({ outcome: "succeeded" });
        // Its process is no older than the call: started for it, not ahead of it.
        expect(Number((r.commandResult as { text: string }).text)).toBeLessThanOrEqual(
          Date.now() - started,
        );
      }
      expect(alive()).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
