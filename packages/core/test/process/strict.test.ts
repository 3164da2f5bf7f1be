import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { InvocationCore } from "../../src/index.js";
import { call, openCore, useCores } from "../_helpers.js";

const { at, core } = useCores();
let strict: InvocationCore;
let trusted: InvocationCore;

beforeAll(async () => {
  strict = await core("strict");
  trusted = await core("default");
});

describe("the strict enforcement profile", () => {
  it("runs a node command on the ipc runtime under the permission model", async () => {
    expect(await strict.invoke(call("fx.main/hello", { name: "Ada" }))).toMatchObject({
      outcome: "succeeded",
      commandResult: { text: "hello Ada" },
    });
  });

  it("lets the command read its own package", async () => {
    const revision = await at.state.readRevision((await at.state.activeRevisionId())!);
    const digest = revision.extensions.find((e) => e.id === "fx.main")!.digest;
    const own = join(at.root, "store", digest, "rukh-extension.json");
    const o = await strict.invoke(call("fx.main/read_file", { path: own }));
    expect(o).toMatchObject({ outcome: "succeeded" });
    expect((o.commandResult as { text: string }).text).toBe(
      readFileSync(own, "utf8").slice(0, 100),
    );
  });

  it.each([
    ["the owner configuration", () => join(at.root, "config.json")],
    ["a system file", () => "/etc/hostname"],
    ["a file next to the state directory", () => join(at.work, "marker-outside.txt")],
  ])("denies reading %s (and host-trusted does not)", async (_what, path) => {
    const target = path();
    const denied = await strict.invoke(call("fx.main/read_file", { path: target }));
    expect(denied).toMatchObject({
      outcome: "command_failed",
      message: "cannot read: ERR_ACCESS_DENIED",
    });
    const allowed = await trusted.invoke(call("fx.main/read_file", { path: target }));
    expect(allowed.message).not.toBe("cannot read: ERR_ACCESS_DENIED");
  });

  it("gives a Node command no network (and host-trusted has it)", async () => {
    let reached = 0;
    const server = createServer((s) => {
      reached++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const denied = await strict.invoke(call("fx.main/connect", { port }));
      expect(denied).toMatchObject({ outcome: "command_failed" });
      expect(denied.message).toMatch(/^cannot connect: /);
      expect(reached).toBe(0);
      const allowed = await trusted.invoke(call("fx.main/connect", { port }));
      expect(allowed).toMatchObject({ outcome: "succeeded", commandResult: { text: "connected" } });
      expect(reached).toBe(1);
    } finally {
      server.close();
    }
  });

  it("denies spawning child processes", async () => {
    const o = await strict.invoke(call("fx.main/stubborn", { path: join(at.work, "never.pid") }));
    expect(o).toMatchObject({ outcome: "execution_failed", reason: "crashed" });
  });

  it("rejects strict calls when the sandbox program cannot set up the sandbox (a refusal, as without user namespaces)", async () => {
    // A trusted program that fails every launch stands in for bubblewrap refused by the kernel.
    const refusing = await openCore(at.state, "strict", { sandboxProgram: "/usr/bin/false" });
    try {
      expect(await refusing.invoke(call("fx.main/hello", { name: "x" }))).toMatchObject({
        outcome: "rejected",
        reason: "enforcement_unavailable",
        message: expect.stringContaining("bubblewrap cannot create the sandbox here"),
      });
    } finally {
      await refusing.close();
    }
  });

  it("never runs a strict command unconfined: no sandbox program, no call", async () => {
    const none = await openCore(at.state, "strict", { sandboxProgram: null });
    try {
      for (const id of ["fx.main/native_tool", "fx.main/hello"])
        expect(
          await none.invoke(call(id, { ...(id.endsWith("hello") && { name: "x" }) })),
        ).toMatchObject({
          outcome: "rejected",
          reason: "enforcement_unavailable",
          message: expect.stringContaining("no sandbox program is configured"),
        });
    } finally {
      await none.close();
    }
  });
});
