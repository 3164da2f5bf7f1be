import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type LockMechanism, stateLocks } from "../../src/index.js";
import { SOCKET_PATH_MAX_BYTES, SYSTEM_LOCKS } from "../../src/state-dir/_lock.js";

// The same table for both ways a state directory's locks are held: the
// abstract sockets Linux has, and the socket files any POSIX system has.
// What a lock promises (one holder, freed when its holder dies however it
// dies, never stolen from a live one) is tested on each, in this process
// and across real processes killed with SIGKILL.
const work = realpathSync(mkdtempSync(join(tmpdir(), "rukh-lock-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) c.kill("SIGKILL");
  children.clear();
});

let n = 0;
const freshRoot = () => {
  const root = join(work, `s${n++}`);
  mkdirSync(root);
  return root;
};

/**
 * A process that takes `kind`/`part` of `root`, says `held` or `busy` on
 * stdout, and keeps what it took until it is killed.
 */
function taker(root: string, mechanism: LockMechanism, kind: string, part?: string) {
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { stateLocks } from ${JSON.stringify(dist)};
const lock = await stateLocks(${JSON.stringify(root)}, ${JSON.stringify(mechanism)}).hold(${JSON.stringify(kind)}${part === undefined ? "" : `, ${JSON.stringify(part)}`});
process.stdout.write(lock === null ? "busy\\n" : "held\\n");
setInterval(() => {}, 60_000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.add(child);
  const said = new Promise<string>((resolve) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      if (out.endsWith("\n")) resolve(out.trim());
    });
    child.once("exit", () => resolve(out.trim() || "exited"));
  });
  const killed = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  return { said, killed };
}

it("uses abstract sockets on Linux and socket files elsewhere", () => {
  expect(SYSTEM_LOCKS).toBe(process.platform === "linux" ? "abstract-socket" : "socket-file");
});

describe.each(["abstract-socket", "socket-file"] as const)("%s locks", (mechanism) => {
  it("have one holder at a time in a process, and can be taken again once released", async () => {
    const locks = stateLocks(freshRoot(), mechanism);
    const a = await locks.hold("publication");
    expect(a).not.toBeNull();
    expect(await locks.hold("publication")).toBeNull();
    a!.release();
    const b = await locks.hold("publication");
    expect(b).not.toBeNull();
    b!.release();
  });

  it("are one per kind, part and state directory", async () => {
    const root = freshRoot();
    const locks = stateLocks(root, mechanism);
    const held = await Promise.all([
      locks.hold("slot", "default.0"),
      locks.hold("slot", "default.1"),
      locks.hold("slot", "agent.0"),
      locks.hold("archive"),
      stateLocks(freshRoot(), mechanism).hold("slot", "default.0"),
    ]);
    expect(held.every((l) => l !== null)).toBe(true);
    expect(await locks.hold("slot", "default.0")).toBeNull();
    for (const l of held) l!.release();
  });

  it("are held across processes, and freed when the holder is killed with SIGKILL", async () => {
    const root = freshRoot();
    const holder = taker(root, mechanism, "host", "h1");
    expect(await holder.said).toBe("held");
    expect(await taker(root, mechanism, "host", "h1").said).toBe("busy");
    expect(await stateLocks(root, mechanism).hold("host", "h1")).toBeNull();
    await holder.killed();
    const after = await stateLocks(root, mechanism).hold("host", "h1");
    expect(after).not.toBeNull();
    after!.release();
  });

  it("give at most one of many racing processes the lock", async () => {
    const root = freshRoot();
    for (let round = 0; round < 3; round++) {
      const takers = Array.from({ length: 8 }, () => taker(root, mechanism, "slot", "race.0"));
      const said = await Promise.all(takers.map((t) => t.said));
      expect(said.filter((s) => s === "held").length, said.join(" ")).toBeLessThanOrEqual(1);
      expect(
        said.every((s) => s === "held" || s === "busy"),
        said.join(" "),
      ).toBe(true);
      await Promise.all(takers.map((t) => t.killed()));
    }
    // Nothing holds it now: the next taker gets it.
    const free = await stateLocks(root, mechanism).hold("slot", "race.0");
    expect(free).not.toBeNull();
    free!.release();
  }, 30_000);
});

describe("socket-file locks on disk", () => {
  it("live in the state directory's locks/, private to the user, and leave nothing once released", async () => {
    const root = freshRoot();
    const lock = await stateLocks(root, "socket-file").hold("publication");
    expect(statSync(join(root, "locks")).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(root, "locks"))).toHaveLength(1);
    lock!.release();
    expect(readdirSync(join(root, "locks"))).toEqual([]);
  });

  it("remove what a killed holder left when the lock is next taken", async () => {
    const root = freshRoot();
    const holder = taker(root, "socket-file", "archive");
    expect(await holder.said).toBe("held");
    await holder.killed();
    expect(readdirSync(join(root, "locks"))).toHaveLength(1);
    const lock = await stateLocks(root, "socket-file").hold("archive");
    expect(lock).not.toBeNull();
    expect(readdirSync(join(root, "locks"))).toHaveLength(1);
    lock!.release();
    expect(readdirSync(join(root, "locks"))).toEqual([]);
  });

  it("refuse a state directory whose path leaves no room for a socket, naming it and the limit", async () => {
    const root = join(work, "d".repeat(SOCKET_PATH_MAX_BYTES - work.length - 20));
    mkdirSync(root);
    await expect(stateLocks(root, "socket-file").hold("publication")).rejects.toThrow(
      `the state directory's path ${root} is too long for its lock sockets`,
    );
  });
});
