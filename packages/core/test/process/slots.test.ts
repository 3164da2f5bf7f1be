import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stateLocks } from "@rukh/profile";
import { afterAll, describe, expect, it } from "vitest";
import { acquireSlot } from "../../src/process/_slots.js";

// A preset's concurrency slots are counted the same way on both lock
// mechanisms (the cross-process cases are the lock tables' in @rukh/profile).
const work = realpathSync(mkdtempSync(join(tmpdir(), "rukh-slots-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(["abstract-socket", "socket-file"] as const)("slots on %s locks", (mechanism) => {
  it("give out at most max per preset, none queued, and take one back when released", async () => {
    const locks = stateLocks(work, mechanism);
    const a = await acquireSlot(locks, "default", 2);
    const b = await acquireSlot(locks, "default", 2);
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(await acquireSlot(locks, "default", 2)).toBeNull();
    // Another preset counts on its own.
    const other = await acquireSlot(locks, "agent", 1);
    expect(other).not.toBeNull();
    a!.release();
    const c = await acquireSlot(locks, "default", 2);
    expect(c).not.toBeNull();
    for (const l of [b, c, other]) l!.release();
  });
});
