import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS } from "@rukh/ipc";
import { processesWith } from "@rukh/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { readJournal } from "../../src/index.js";
import { call, openCore, useCores } from "../_helpers.js";

// A command whose channel closes, breaks the protocol or never opens while its
// process runs on ends at once: execution_failed/protocol_error, its process
// tree killed and its concurrency slot free again, not at its deadline. The
// preset has one slot and a 30 s deadline. Ready (held) processes get the
// same cases in ready.test.ts.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { at } = useCores();
let mute: string;
beforeAll(() => {
  mute = join(at.work, "mute");
});

describe("a call whose channel ends while its process runs on", () => {
  it.each([
    ["closes its channel", "fx.main/drop_channel", false, 0],
    ["breaks the protocol", "fx.main/garble", false, 0],
    ["never sends its hello", "fx.main/uptime", true, IPC_DEFAULT_HANDSHAKE_TIMEOUT_MS],
  ] as const)(
    "%s: ends at once, its tree killed and its slot free",
    async (_what, identity, silent, limitMs) => {
      const c = await openCore(at.state, "single", {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", RUKH_TEST_MUTE: mute },
      });
      try {
        if (silent) writeFileSync(mute, "");
        const started = Date.now();
        const first = c.invoke(call(identity));
        await sleep(300);
        // The call holds the preset's one slot while it runs.
        expect(await c.invoke(call("fx.main/hello", { name: "meanwhile" }))).toMatchObject({
          outcome: "rejected",
          reason: "concurrency_limit",
        });
        const o = await first;
        const took = Date.now() - started;
        rmSync(mute, { force: true });
        expect(o).toMatchObject({ outcome: "execution_failed", reason: "protocol_error" });
        console.info(`${identity}${silent ? " (mute)" : ""}: final after ${took} ms`);
        expect(took).toBeGreaterThanOrEqual(limitMs);
        // Well before the 30 s deadline, with room for a loaded machine.
        expect(took).toBeLessThan(limitMs + 10_000);
        // The slot is free the moment the outcome is back.
        expect(await c.invoke(call("fx.main/hello", { name: "next" }))).toMatchObject({
          outcome: "succeeded",
        });
        expect(processesWith(`${at.root}/store/`, "node")).toEqual([]);
        const finals = (await readJournal(at.root)).records.filter(
          (r) => r.invocationId === o.invocationId && r.type === "final",
        );
        expect(finals).toEqual([
          expect.objectContaining({ outcome: "execution_failed", reason: "protocol_error" }),
        ]);
      } finally {
        rmSync(mute, { force: true });
        await c.close();
      }
    },
  );
});
