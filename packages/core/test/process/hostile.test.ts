import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { STRICT_UIDS_DEFAULT } from "@rukh/profile";
import {
  exposedState,
  FIXTURE_PUB,
  fixturePreset,
  int,
  machine,
  managed,
  processesWith,
  removeDir,
  str,
  tempDir,
} from "@rukh/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeConfinement } from "../../src/index.js";
import { WATCHDOG_NAME } from "../../src/process/_watchdog.js";
import { NOBODY, nobodyCannotRun } from "../_helpers.js";

// The hostile-command suite: signed commands that try, as an attacker would,
// to reach past the strict profile or to outlive their invocation. Each runs
// in a driver process of its own — as root, and as uid 65534 — and every
// check is made from outside: the host's files, processes, sockets and /proc.

const here = (f: string) => new URL(`../hostile/${f}`, import.meta.url).pathname;
const isRoot = process.getuid?.() === 0;
const confinement = await describeConfinement();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** keyctl, to read and write kernel keyrings (Debian's keyutils); the keyring case needs it. */
const keyctl = ["/usr/bin/keyctl", "/bin/keyctl"].find((p) => existsSync(p));
if (keyctl === undefined)
  console.warn("hostile keyring case skipped: keyctl (keyutils) is not installed");

const nodeCommand = (id: string, inputs: object[] = [], program = "bin/commands.mjs") => ({
  id,
  path: [id.replaceAll("_", "-")],
  summary: `Try ${id}`,
  inputs,
  execute: managed({ kind: "text" }, program),
  machine: machine(),
});
const nativeCommand = (id: string) => ({
  id,
  path: [id],
  summary: `Try ${id}`,
  execute: { mapping: "passthrough", program: `bin/${id}.sh`, runtime: "native" },
});
const port = () => int("port", { required: true, maximum: 65_535 });
const text = (id: string) => str(id, { required: true, maxLength: 4096 });
const DESCRIPTOR = {
  format: "rukh.extension/2",
  id: "fx.hostile",
  version: "1.0.0",
  publisher: "acme",
  commands: [
    nodeCommand("signal", [int("pid", { required: true, maximum: 4_194_304 }), text("signal")]),
    nodeCommand("tcp_connect", [port()]),
    nodeCommand("udp_send", [port()]),
    nodeCommand("dns_lookup", [port()]),
    nodeCommand("listen", [port(), int("hold_ms", { default: 1_500 })]),
    nodeCommand("unix_connect", [text("path")]),
    nodeCommand("read", [text("path")]),
    nodeCommand("write_fd", [int("fd", { required: true, maximum: 1_024 })]),
    nodeCommand("write_file", [text("path"), int("bytes", { required: true, maximum: 8 << 20 })]),
    nodeCommand("hog"),
    nodeCommand("environment"),
    nodeCommand("leave_behind", [text("marker"), str("ready", { default: "" }), text("after")]),
    nodeCommand("slow", [int("wait_ms", { default: 1_000 })]),
    nodeCommand("deaf", [], "bin/deaf.mjs"),
    nativeCommand("remount"),
    nativeCommand("admin"),
    nativeCommand("bomb"),
    nativeCommand("setsid"),
    nativeCommand("bigwrite"),
    nativeCommand("userns"),
    nativeCommand("keyring"),
    nativeCommand("spawn"),
    {
      ...nodeCommand("remount_tool"),
      execute: managed({ kind: "text" }, "bin/remount-tool.sh", "native"),
    },
    {
      ...nodeCommand("admin_tool"),
      execute: managed({ kind: "text" }, "bin/admin-tool.sh", "native"),
    },
  ],
};

const preset = (enforcement: string, over: object = {}) =>
  fixturePreset({
    commands: ["fx.hostile/*"],
    deadlineMs: 10_000,
    maxConcurrency: 16,
    enforcement,
    ...over,
  });
const PRESETS = {
  default: preset("host-trusted"),
  strict: preset("strict"),
  strict_short: preset("strict", { deadlineMs: 3_000, limits: { processes: 48 } }),
  strict_small: preset("strict", { limits: { memoryBytes: 268_435_456 } }),
  trusted_short: preset("host-trusted", { deadlineMs: 2_000 }),
  trusted_small: preset("host-trusted", { limits: { fileSizeBytes: 1_048_576 } }),
};

interface Outcome {
  key: string;
  outcome: string;
  reason: string;
  message?: string;
  resourceLimit?: string;
  commandResult?: { text: string };
}
interface Call {
  key: string;
  identity: string;
  preset: string;
  values?: Record<string, unknown>;
  args?: string[];
  cancelAfterMs?: number;
}

/** One attacker's world: a state directory, a home with secrets, bait sockets and processes. */
interface World {
  readonly mode: string;
  readonly uid: number;
  readonly work: string;
  readonly root: string;
  readonly home: string;
  readonly runtimeDir: string;
  readonly fakeBin: string;
  readonly inherited: string;
  readonly hostFile: string;
}

async function makeWorld(mode: string, uid: number): Promise<World> {
  // A managed native command gets no arguments: its script names its targets.
  const work0 = tempDir(`rukh-hostile-${mode}-`);
  const root0 = join(work0, "home");
  const rukh = new URL("../../../../apps/reference-cli/dist/main.js", import.meta.url).pathname;
  const tools = {
    "bin/remount-tool.sh": `#!/bin/sh\nexec "$(dirname "$0")/remount.sh" '${join(work0, "host-file.txt")}'\n`,
    "bin/admin-tool.sh": `#!/bin/sh\nexec "$(dirname "$0")/admin.sh" '${process.execPath}' '${rukh}' '${root0}' '${join(work0, "acme.pub")}'\n`,
  };
  const { work, root } = await exposedState({
    at: work0,
    prefix: `rukh-hostile-${mode}-`,
    endpointNamespace: "acme-hostile",
    presets: PRESETS,
    packages: [
      {
        descriptor: DESCRIPTOR,
        programs: Object.fromEntries([
          ["bin/commands.mjs", readFileSync(here("commands.mjs"), "utf8")],
          ["bin/deaf.mjs", readFileSync(here("deaf.mjs"), "utf8")],
          ...["remount", "admin", "bomb", "setsid", "bigwrite", "userns", "keyring", "spawn"].map(
            (n) => [`bin/${n}.sh`, readFileSync(here(`${n}.sh`), "utf8")],
          ),
          ...Object.entries(tools),
        ]),
      },
    ],
  });
  // The state directory lives in the attacker's home, as it does by default.
  const home = work;
  mkdirSync(join(home, ".ssh"), { mode: 0o700 });
  writeFileSync(join(home, ".ssh", "id_ed25519"), "SECRET-SSH-KEY\n", { mode: 0o600 });
  mkdirSync(join(root, "keys"), { recursive: true });
  writeFileSync(join(root, "keys", "acme.key"), "SECRET-SIGNING-KEY\n", { mode: 0o600 });
  writeFileSync(join(work, "acme.pub"), FIXTURE_PUB);
  const runtimeDir = join(work, "run-user");
  mkdirSync(runtimeDir, { mode: 0o700 });
  const fakeBin = join(work, "bin");
  mkdirSync(fakeBin);
  const inherited = join(work, "inherited.txt");
  writeFileSync(inherited, "original\n");
  const hostFile = join(work, "host-file.txt");
  writeFileSync(hostFile, "original\n");
  const pwned = join(work, "fake-bwrap-ran");
  writeFileSync(
    join(fakeBin, "bwrap"),
    `#!/bin/sh\necho ran > ${pwned}\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n`,
    { mode: 0o755 },
  );
  if (uid !== process.getuid?.()) spawnSync("chown", ["-R", `${uid}:${uid}`, work]);
  chmodSync(work, 0o755);
  return { mode, uid, work, root, home, runtimeDir, fakeBin, inherited, hostFile };
}

/** Starts the driver as the world's user with fd 30 open on a host file, and a planted PATH. */
function startDriver(w: World, calls: Call[], sandboxProgram?: string): ChildProcess {
  const fd = openSync(w.inherited, "r+");
  const stdio: (string | number)[] = ["ignore", "pipe", "pipe"];
  while (stdio.length < 30) stdio.push("ignore");
  stdio.push(fd);
  const args = [
    here("driver.mjs"),
    w.root,
    JSON.stringify(calls),
    ...(sandboxProgram ? [sandboxProgram] : []),
  ];
  const asUser =
    w.uid === process.getuid?.()
      ? [process.execPath, ...args]
      : [
          "setpriv",
          `--reuid=${w.uid}`,
          `--regid=${w.uid}`,
          "--clear-groups",
          process.execPath,
          ...args,
        ];
  const child = spawn(asUser[0]!, asUser.slice(1), {
    stdio: stdio as never,
    env: {
      PATH: `${w.fakeBin}:/usr/bin:/bin`,
      HOME: w.home,
      XDG_RUNTIME_DIR: w.runtimeDir,
      AWS_SECRET_ACCESS_KEY: "SECRET-IN-THE-HOST-ENVIRONMENT",
    },
  });
  closeSync(fd);
  return child;
}

async function run(w: World, calls: Call[], sandboxProgram?: string) {
  const child = startDriver(w, calls, sandboxProgram);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => {
    out += c;
  });
  child.stderr!.on("data", (c: Buffer) => {
    err += c;
  });
  const code = await new Promise((r) => child.once("close", r));
  const outcomes = new Map<string, Outcome>();
  for (const line of out.split("\n"))
    if (line.startsWith("OUTCOME ")) {
      const o = JSON.parse(line.slice(8)) as Outcome;
      outcomes.set(o.key, o);
    }
  if (outcomes.size !== calls.length) throw new Error(`driver exited ${code}: ${err}${out}`);
  return { outcomes, stdout: out, driverPid: child.pid! };
}

const resultOf = (o: Outcome | undefined) => o?.commandResult?.text ?? `${o?.outcome}/${o?.reason}`;

/** Bait listeners on the host: each counts whatever reaches it. */
interface Bait {
  tcp: Server;
  tcpPort: number;
  udp: UdpSocket;
  udpPort: number;
  unix: Server[];
  hits: string[];
}
async function lay(w: World): Promise<Bait> {
  const hits: string[] = [];
  const tcp = createServer((s) => {
    hits.push("tcp");
    s.destroy();
  });
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  const udp = createSocket("udp4");
  udp.on("message", () => hits.push("udp"));
  await new Promise<void>((r) => udp.bind(0, "127.0.0.1", r));
  const unix: Server[] = [];
  for (const path of [
    join(w.work, "agent.sock"),
    join(w.runtimeDir, "bus"),
    `\0rukh-hostile-${w.mode}`,
  ]) {
    const s = createServer((c) => {
      hits.push(`unix ${path}`);
      c.destroy();
    });
    await new Promise<void>((r) => s.listen(path, r));
    if (!path.startsWith("\0")) chmodSync(path, 0o777);
    unix.push(s);
  }
  return {
    tcp,
    tcpPort: (tcp.address() as { port: number }).port,
    udp,
    udpPort: (udp.address() as { port: number }).port,
    unix,
    hits,
  };
}

/** Runs one call that leaves descendants carrying `marker`; checks its outcome and that none outlived it. */
async function expectNothingLeft(
  w: World,
  call: Omit<Call, "key" | "cancelAfterMs"> & { cancelAfterMs: number | undefined },
  marker: string,
  expected: string,
) {
  const { cancelAfterMs, ...rest } = call;
  const { outcomes } = await run(w, [
    { key: "c", ...rest, ...(cancelAfterMs !== undefined && { cancelAfterMs }) },
  ]);
  const o = outcomes.get("c")!;
  expect(`${o.outcome}/${o.reason}`).toBe(expected);
  expect(await gone(marker, 1_000)).toEqual([]);
}

async function gone(marker: string, withinMs = 3_000): Promise<number[]> {
  for (let t = 0; t < withinMs && processesWith(marker).length > 0; t += 50) await sleep(50);
  return processesWith(marker);
}

const nobodySkip = isRoot ? nobodyCannotRun() : undefined;
const modes: { mode: string; uid: number; skip?: string }[] = [
  isRoot
    ? { mode: "root", uid: 0 }
    : { mode: "root", uid: 0, skip: "the suite does not run as root" },
  isRoot
    ? { mode: "unprivileged", uid: NOBODY, ...(nobodySkip !== undefined && { skip: nobodySkip }) }
    : { mode: "unprivileged", uid: process.getuid?.() ?? NOBODY },
];
const noStrict = confinement.strict.available ? undefined : confinement.strict.reason;
for (const m of modes) {
  const skip = m.skip ?? noStrict;
  if (skip !== undefined) {
    console.warn(`hostile suite (${m.mode}) skipped: ${skip}`);
  }
  describe.skipIf(skip !== undefined)(`hostile strict commands, host as ${m.mode}`, () => {
    let w: World;
    let bait: Bait;
    let bystander: ChildProcess;
    beforeAll(async () => {
      w = await makeWorld(m.mode, m.uid);
      bait = await lay(w);
      bystander = spawn("sleep", ["600"], { stdio: "ignore", uid: m.uid, gid: m.uid });
    });
    afterAll(() => {
      bystander.kill("SIGKILL");
      bait.tcp.close();
      bait.udp.close();
      for (const s of bait.unix) s.close();
      if (process.env.RUKH_KEEP_HOSTILE === undefined) removeDir(w.work);
    });

    it("cannot remount / read-write, write a host file or run administration", async () => {
      const active = readFileSync(join(w.root, "active"), "utf8");
      const rukh = new URL("../../../../apps/reference-cli/dist/main.js", import.meta.url).pathname;
      const { outcomes } = await run(w, [
        { key: "remount", identity: "fx.hostile/remount", preset: "strict", args: [w.hostFile] },
        {
          key: "admin",
          identity: "fx.hostile/admin",
          preset: "strict",
          args: [process.execPath, rukh, w.root, join(w.work, "acme.pub")],
        },
      ]);
      expect(outcomes.get("remount")).toMatchObject({ outcome: "succeeded" });
      expect(readFileSync(w.hostFile, "utf8")).toBe("original\n");
      expect(existsSync("/usr/pwned-by-a-strict-command")).toBe(false);
      expect(outcomes.get("admin")).toMatchObject({ outcome: "succeeded" });
      expect(readFileSync(join(w.root, "active"), "utf8")).toBe(active);
    });

    it("runs as a uid of its own, in a user namespace that can make no other and mount nothing", async () => {
      const { stdout } = await run(w, [
        { key: "a", identity: "fx.hostile/userns", preset: "strict", args: [] },
        { key: "b", identity: "fx.hostile/userns", preset: "strict", args: [] },
      ]);
      const seen = stdout
        .split("\n")
        .filter((l) => l.startsWith("USERNS "))
        .map((l) => {
          const [, userns, , mount, , uid, , ...map] = l.split(" ");
          return { userns, mount, uid: Number(uid), map: map.join(" ") };
        });
      expect(seen).toHaveLength(2);
      for (const s of seen) {
        expect(s).toMatchObject({ userns: "denied", mount: "denied" });
        if (m.mode === "root") {
          // Inside, the uid it has outside: the map is one uid to itself.
          expect(s.map).toBe(`${s.uid} ${s.uid} 1`);
          expect(s.uid).toBeGreaterThanOrEqual(STRICT_UIDS_DEFAULT.first);
          expect(s.uid).toBeLessThan(STRICT_UIDS_DEFAULT.first + STRICT_UIDS_DEFAULT.count);
        } else expect(s.uid).toBe(m.uid);
      }
      // Two calls at once of a root host never share a uid.
      if (m.mode === "root") expect(seen[0]!.uid).not.toBe(seen[1]!.uid);
    });

    it("starts the programs it may (streams on /dev/null, a shell, Python's subprocess), and not one from the host's home", async () => {
      const homeProgram = join(w.home, "own-program.sh");
      writeFileSync(homeProgram, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      if (w.uid !== process.getuid?.()) spawnSync("chown", [`${w.uid}:${w.uid}`, homeProgram]);
      const { outcomes, stdout } = await run(w, [
        { key: "s", identity: "fx.hostile/spawn", preset: "strict", args: [homeProgram] },
      ]);
      expect(outcomes.get("s")).toMatchObject({ outcome: "succeeded" });
      const said = stdout.split("\n").filter((l) => l.startsWith("SPAWN "));
      expect(said).toEqual([
        "SPAWN sh ok",
        "SPAWN devnull ok",
        "SPAWN urandom ok",
        ...(existsSync("/usr/bin/python3") ? ["SPAWN python ok"] : []),
        // The home is an empty tmpfs inside: the program is not there (sh: 127).
        "SPAWN home refused 127",
      ]);
    });

    it.skipIf(keyctl === undefined)(
      "shares no kernel keyring with a later call or with the machine's other processes",
      async () => {
        const said = async (args: string[]) => {
          const { stdout } = await run(w, [
            { key: "k", identity: "fx.hostile/keyring", preset: "strict", args },
          ]);
          return stdout.split("\n").find((l) => l.startsWith("KEY "));
        };
        // A name of this run's own: what earlier runs left in a keyring cannot answer for it.
        const name = `rukh-hostile-${process.pid}-${Date.now()}`;
        expect(await said(["add", name, "one caller's secret"])).toBe("KEY added");
        expect(await said(["find", name])).toBe("KEY none");
        // Outside: a process of the uid strict commands once shared.
        const outside = spawnSync(
          "setpriv",
          [
            `--reuid=${NOBODY}`,
            `--regid=${NOBODY}`,
            "--clear-groups",
            keyctl!,
            "search",
            "@u",
            "user",
            name,
          ],
          { encoding: "utf8" },
        );
        expect(outside.status).not.toBe(0);
      },
    );

    it.runIf(m.mode === "root")(
      "cannot be signalled or read by another process of uid 65534",
      async () => {
        const driver = startDriver(w, [
          { key: "s", identity: "fx.hostile/slow", preset: "strict", values: { wait_ms: 3_000 } },
        ]);
        let out = "";
        driver.stdout!.on("data", (c: Buffer) => {
          out += c;
        });
        const store = `${w.root}/store/`;
        for (let i = 0; i < 100 && processesWith(store, "node").length === 0; i++) await sleep(50);
        const [pid] = processesWith(store, "node");
        expect(pid).toBeDefined();
        expect(statSync(`/proc/${pid}`).uid).not.toBe(NOBODY);
        const attack = spawnSync(
          "setpriv",
          [
            `--reuid=${NOBODY}`,
            `--regid=${NOBODY}`,
            "--clear-groups",
            "/bin/sh",
            "-c",
            `kill -STOP ${pid} 2>/dev/null; echo "kill $?"; cat /proc/${pid}/environ >/dev/null 2>&1; echo "read $?"`,
          ],
          { encoding: "utf8" },
        );
        expect(attack.stdout).toBe("kill 1\nread 1\n");
        await new Promise((r) => driver.once("close", r));
        expect(out).toContain('"commandResult":{"kind":"text","text":"slept"}');
      },
    );

    it("cannot signal its host or an unrelated process, not even with signal 0", async () => {
      const calls: Call[] = [];
      for (const signal of ["0", "SIGKILL"])
        calls.push({
          key: `bystander ${signal}`,
          identity: "fx.hostile/signal",
          preset: "strict",
          values: { pid: bystander.pid!, signal },
        });
      for (const signal of ["0", "SIGKILL"])
        calls.push({
          key: `host ${signal}`,
          identity: "fx.hostile/signal",
          preset: "strict",
          values: { pid: "$HOST_PID", signal },
        });
      const { outcomes } = await run(w, calls);
      // Every call got its outcome from a host that is still there to report it.
      expect(outcomes.size).toBe(4);
      for (const o of outcomes.values()) expect(resultOf(o)).toBe("denied: ESRCH");
      expect(processesWith("600")).toContain(bystander.pid!);
    });

    it("has no network: TCP, UDP, DNS, listening and Unix sockets all fail", async () => {
      const listenPort = 20_000 + Math.floor(Math.random() * 20_000);
      const driver = run(w, [
        {
          key: "tcp",
          identity: "fx.hostile/tcp_connect",
          preset: "strict",
          values: { port: bait.tcpPort },
        },
        {
          key: "udp",
          identity: "fx.hostile/udp_send",
          preset: "strict",
          values: { port: bait.udpPort },
        },
        {
          key: "dns",
          identity: "fx.hostile/dns_lookup",
          preset: "strict",
          values: { port: bait.udpPort },
        },
        {
          key: "listen",
          identity: "fx.hostile/listen",
          preset: "strict",
          values: { port: listenPort, hold_ms: 2_000 },
        },
        ...[join(w.work, "agent.sock"), join(w.runtimeDir, "bus"), `@rukh-hostile-${w.mode}`].map(
          (path) => ({
            key: `unix ${path}`,
            identity: "fx.hostile/unix_connect",
            preset: "strict",
            values: { path },
          }),
        ),
      ]);
      // From the host, the command's listener is not there.
      await sleep(1_000);
      const reach = await new Promise<string>((resolve) => {
        const c = connect(listenPort, "127.0.0.1");
        c.once("connect", () => resolve("connected"));
        c.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
      });
      const { outcomes } = await driver;
      expect(reach).toBe("ECONNREFUSED");
      expect(resultOf(outcomes.get("tcp"))).toMatch(/^denied: /);
      expect(resultOf(outcomes.get("dns"))).toMatch(/^denied: /);
      for (const [k, o] of outcomes)
        if (k.startsWith("unix")) expect(resultOf(o)).toMatch(/^denied: /);
      await sleep(200);
      expect(bait.hits).toEqual([]);
    });

    it("sees only the documented environment (strict) or PATH alone (host-trusted)", async () => {
      const { outcomes } = await run(w, [
        { key: "strict", identity: "fx.hostile/environment", preset: "strict" },
        { key: "trusted", identity: "fx.hostile/environment", preset: "default" },
      ]);
      // RUKH_IPC_FD is there too, until the runtime takes it; the sandbox adds PWD.
      const strict = JSON.parse(resultOf(outcomes.get("strict")));
      expect(strict).toEqual({
        PATH: "/usr/bin:/bin",
        HOME: w.home,
        TMPDIR: "/tmp",
        PWD: strict.PWD,
      });
      expect(strict.PWD).toContain(join(w.root, "store"));
      // Host-trusted: the core's environment (PATH alone by default), plus PWD in a pid namespace.
      const trusted = Object.keys(JSON.parse(resultOf(outcomes.get("trusted"))));
      expect(trusted.filter((k) => k !== "PWD")).toEqual(["PATH"]);
    });

    it("cannot read the home's secrets, the state directory or its keys", async () => {
      // One finished call first, so that the journal has history to try to read.
      await run(w, [
        { key: "w", identity: "fx.hostile/slow", preset: "default", values: { wait_ms: 1 } },
      ]);
      const paths = [
        join(w.home, ".ssh", "id_ed25519"),
        join(w.root, "active"),
        join(w.root, "keys", "acme.key"),
        // History the earlier calls of this suite left (it exists: read as root it is there).
        join(w.root, "journal", "archive", "0000000001.jsonl"),
        "/etc/passwd",
      ];
      const { outcomes } = await run(
        w,
        paths.map((path) => ({
          key: path,
          identity: "fx.hostile/read",
          preset: "strict",
          values: { path },
        })),
      );
      for (const path of paths) {
        expect(existsSync(path)).toBe(true);
        expect(resultOf(outcomes.get(path))).toMatch(/^denied: /);
      }
    });

    it.each(["strict", "default"])(
      "cannot write through a descriptor its launcher inherited (%s)",
      async (p) => {
        const { outcomes } = await run(w, [
          { key: "fd", identity: "fx.hostile/write_fd", preset: p, values: { fd: 30 } },
        ]);
        expect(outcomes.get("fd")).toMatchObject({ outcome: "succeeded" });
        expect(readFileSync(w.inherited, "utf8")).toBe("original\n");
      },
    );

    it("never runs a bwrap planted first on PATH, and refuses one in a writable directory", async () => {
      const pwned = join(w.work, "fake-bwrap-ran");
      const { outcomes } = await run(w, [
        { key: "slow", identity: "fx.hostile/slow", preset: "strict", values: { wait_ms: 1 } },
      ]);
      expect(outcomes.get("slow")).toMatchObject({ outcome: "succeeded" });
      expect(existsSync(pwned)).toBe(false);
      const named = await run(
        w,
        [{ key: "slow", identity: "fx.hostile/slow", preset: "strict", values: { wait_ms: 1 } }],
        join(w.fakeBin, "bwrap"),
      );
      expect(named.outcomes.get("slow")).toMatchObject({
        outcome: "rejected",
        reason: "enforcement_unavailable",
        message: expect.stringMatching(/writable by group or others|owned by uid/),
      });
      expect(existsSync(pwned)).toBe(false);
    });

    it("keeps a fork bomb under the process limit and leaves nothing behind", async () => {
      const marker = `bomb-${w.mode}-${Date.now()}`;
      const driver = run(w, [
        { key: "bomb", identity: "fx.hostile/bomb", preset: "strict_short", args: [marker] },
      ]);
      let most = 0;
      for (let t = 0; t < 2_500; t += 100) {
        most = Math.max(most, processesWith(marker).length);
        await sleep(100);
      }
      const { outcomes } = await driver;
      // The shell gives up when fork fails, or the deadline ends it: either way it did not succeed.
      expect(outcomes.get("bomb")?.outcome).toMatch(/^(command_failed|cancelled)$/);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(48);
      expect(await gone(marker)).toEqual([]);
    });

    it("ends a memory hog with resource_limit/memory", async () => {
      const { outcomes } = await run(w, [
        { key: "hog", identity: "fx.hostile/hog", preset: "strict_small" },
      ]);
      expect(outcomes.get("hog")).toMatchObject({
        outcome: "execution_failed",
        reason: "resource_limit",
        resourceLimit: "memory",
      });
    });

    it.each([
      ["success", "finish", "strict", undefined, "succeeded/completed"],
      ["cancel", "hang", "strict", 1_000, "cancelled/client_cancel"],
      ["deadline", "hang", "strict_short", undefined, "cancelled/deadline"],
    ] as const)(
      "after %s, a strict command's setsid'd and double-forked grandchildren are gone",
      async (_c, after, p, cancelAfterMs, expected) => {
        const marker = `setsid-${w.mode}-${after}-${Date.now()}`;
        await expectNothingLeft(
          w,
          { identity: "fx.hostile/setsid", preset: p, args: [marker, after], cancelAfterMs },
          marker,
          expected,
        );
      },
    );

    it("after kill -9 of the host, a strict command's grandchildren are gone", async () => {
      const marker = `setsid-lost-${w.mode}-${Date.now()}`;
      const driver = startDriver(w, [
        { key: "s", identity: "fx.hostile/setsid", preset: "strict", args: [marker, "hang"] },
      ]);
      let out = "";
      driver.stdout!.on("data", (c: Buffer) => {
        out += c;
      });
      driver.stderr!.resume();
      for (let i = 0; i < 100 && !out.includes("ready"); i++) await sleep(50);
      expect(processesWith(marker).length).toBeGreaterThan(0);
      driver.kill("SIGKILL");
      expect(await gone(marker, 2_000)).toEqual([]);
    });

    it("after kill -9 of the host, a strict command that never watches its channel is gone", async () => {
      const driver = startDriver(w, [{ key: "d", identity: "fx.hostile/deaf", preset: "strict" }]);
      driver.stdout!.resume();
      driver.stderr!.resume();
      const program = join(w.root, "store");
      for (let i = 0; i < 100 && processesWith(program, "node").length === 0; i++) await sleep(50);
      expect(processesWith(program, "node").length).toBeGreaterThan(0);
      driver.kill("SIGKILL");
      expect(await gone(program, 2_000)).toEqual([]);
    });

    it("over MCP, a managed native command can neither remount / nor run administration", async () => {
      const active = readFileSync(join(w.root, "active"), "utf8");
      const { outcomes } = await run(w, [
        { key: "remount", identity: "fx.hostile/remount_tool", preset: "strict" },
        { key: "admin", identity: "fx.hostile/admin_tool", preset: "strict" },
      ]);
      // The attack runs before any handshake; the call then fails, but nothing happened.
      for (const o of outcomes.values()) expect(o.outcome).toBe("execution_failed");
      expect(readFileSync(w.hostFile, "utf8")).toBe("original\n");
      expect(readFileSync(join(w.root, "active"), "utf8")).toBe(active);
    });
  });

  const noTree =
    confinement.hostTrustedTree.mechanism === "pid-namespace"
      ? undefined
      : confinement.hostTrustedTree.detail;
  const treeSkip = m.skip ?? noTree;
  if (treeSkip !== undefined) {
    console.warn(`process-tree suite (${m.mode}) skipped: ${treeSkip}`);
  }
  describe.skipIf(treeSkip !== undefined)(
    `process trees end with their invocation, host as ${m.mode}`,
    () => {
      let w: World;
      beforeAll(async () => {
        w = await makeWorld(`${m.mode}-tree`, m.uid);
      });
      afterAll(() => {
        if (process.env.RUKH_KEEP_HOSTILE === undefined) removeDir(w.work);
      });

      it.each([
        ["success", "finish", "default", undefined, "succeeded/completed"],
        ["cancel", "hang", "default", 800, "cancelled/client_cancel"],
        ["deadline", "deaf", "trusted_short", undefined, "cancelled/deadline"],
      ] as const)(
        "after %s, detached and double-forked grandchildren are gone",
        async (_c, then, p, cancelAfterMs, expected) => {
          const marker = `tree-${m.mode}-${then}-${Date.now()}`;
          await expectNothingLeft(
            w,
            {
              identity: "fx.hostile/leave_behind",
              preset: p,
              values: { marker, after: then },
              cancelAfterMs,
            },
            marker,
            expected,
          );
        },
      );

      it("after kill -9 of the host, a command that ignores SIGTERM and its grandchildren are gone", async () => {
        const marker = `lost-${m.mode}-${Date.now()}`;
        const ready = join(w.work, `${marker}.ready`);
        const driver = startDriver(w, [
          {
            key: "t",
            identity: "fx.hostile/leave_behind",
            preset: "default",
            values: { marker, after: "deaf", ready },
          },
        ]);
        driver.stdout!.resume();
        driver.stderr!.resume();
        for (let i = 0; i < 100 && !existsSync(ready); i++) await sleep(50);
        expect(processesWith(marker).length).toBeGreaterThan(0);
        driver.kill("SIGKILL");
        expect(await gone(w.root, 2_000)).toEqual([]);
        expect(await gone(marker, 1_000)).toEqual([]);
      });

      it("after kill -9 of the host, a command that never watches its channel is gone", async () => {
        const driver = startDriver(w, [
          { key: "d", identity: "fx.hostile/deaf", preset: "default" },
        ]);
        driver.stdout!.resume();
        driver.stderr!.resume();
        // The command itself, not the sandbox starting it.
        const store = join(w.root, "store");
        for (let i = 0; i < 100 && processesWith(store, "node").length === 0; i++) await sleep(50);
        expect(processesWith(store, "node").length).toBeGreaterThan(0);
        driver.kill("SIGKILL");
        expect(await gone(join(w.root, "store"), 2_000)).toEqual([]);
      });

      /** Starts a deaf host-trusted command with no sandbox program; resolves once it and its watchdog run. */
      async function deafWithoutNamespace() {
        const driver = startDriver(
          w,
          [{ key: "d", identity: "fx.hostile/deaf", preset: "default" }],
          "none",
        );
        driver.stdout!.resume();
        driver.stderr!.resume();
        const store = join(w.root, "store");
        for (let i = 0; i < 100 && processesWith(store, "node").length === 0; i++) await sleep(50);
        const [command] = processesWith(store, "node");
        // Its watchdog names it: other hosts on this machine may have theirs.
        const watchdog = `${WATCHDOG_NAME}\0${command}\0`;
        for (let i = 0; i < 40 && processesWith(watchdog).length === 0; i++) await sleep(50);
        expect(processesWith(watchdog)).toHaveLength(1);
        return { driver, store, watchdog };
      }

      it("after kill -9 of a host without a pid namespace, its watchdog kills the command's group", async () => {
        const { driver, store, watchdog } = await deafWithoutNamespace();
        driver.kill("SIGKILL");
        expect(await gone(store, 2_000)).toEqual([]);
        expect(await gone(watchdog, 1_000)).toEqual([]);
        // The next start finalizes the lost call, with nothing left to kill.
        expect((await run(w, [], "none")).stdout).toMatch(/^RECOVERED \["[0-9a-f-]{36}"\]$/m);
      });

      it("after kill -9 of a host and its watchdog, the next start kills what they left", async () => {
        const { driver, store, watchdog } = await deafWithoutNamespace();
        for (const pid of processesWith(watchdog)) process.kill(pid, "SIGKILL");
        driver.kill("SIGKILL");
        await new Promise((r) => driver.once("close", r));
        // Its own process group, deaf to the channel and to SIGTERM: it outlives its host.
        await sleep(500);
        expect(processesWith(store, "node").length).toBe(1);
        const { stdout } = await run(w, [], "none");
        expect(stdout).toMatch(/^RECOVERED \["[0-9a-f-]{36}"\]$/m);
        expect(await gone(store, 1_000)).toEqual([]);
      });

      it("releases the watchdog when a call without a pid namespace ends", async () => {
        const driver = run(
          w,
          [
            {
              key: "s",
              identity: "fx.hostile/slow",
              preset: "default",
              values: { wait_ms: 1_000 },
            },
          ],
          "none",
        );
        const store = join(w.root, "store");
        for (let i = 0; i < 100 && processesWith(store, "node").length === 0; i++) await sleep(20);
        const watchdog = `${WATCHDOG_NAME}\0${processesWith(store, "node")[0]}\0`;
        for (let i = 0; i < 40 && processesWith(watchdog).length === 0; i++) await sleep(20);
        expect(processesWith(watchdog)).toHaveLength(1);
        expect((await driver).outcomes.get("s")).toMatchObject({ outcome: "succeeded" });
        expect(await gone(watchdog, 1_000)).toEqual([]);
      });

      it("ends a command killed at its file size limit with resource_limit/fileSize", async () => {
        const target = join(w.work, "big.bin");
        const { outcomes } = await run(w, [
          { key: "big", identity: "fx.hostile/bigwrite", preset: "trusted_small", args: [target] },
        ]);
        expect(outcomes.get("big")).toMatchObject({
          outcome: "execution_failed",
          reason: "resource_limit",
          resourceLimit: "fileSize",
        });
        expect(statSync(target).size).toBe(1_048_576);
      });

      it("gives a Node command EFBIG at its file size limit", async () => {
        const path = join(w.work, "big-node.bin");
        const { outcomes } = await run(w, [
          {
            key: "big",
            identity: "fx.hostile/write_file",
            preset: "trusted_small",
            values: { path, bytes: 2 << 20 },
          },
        ]);
        expect(resultOf(outcomes.get("big"))).toBe("denied: EFBIG");
        expect(statSync(path).size).toBeLessThanOrEqual(1_048_576);
      });
    },
  );
}
