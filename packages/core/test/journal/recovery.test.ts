import { spawn } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { StateDirectory } from "@rukh/profile";
import { describe, expect, it } from "vitest";
import { createInvocationCore, readJournal } from "../../src/index.js";
import { binding, call, cleanup, makeState, openCore, startRecord } from "../_helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("journal and recovery", () => {
  it.each(["abstract-socket", "socket-file"] as const)(
    "finalizes a call whose host was SIGKILLed as host_lost and never re-runs it (%s locks)",
    async (locks) => {
      const { root, work } = await makeState();
      const state = new StateDirectory(root, { locks });
      try {
        const marker = join(work, "marker.txt");
        const host = spawn(
          process.execPath,
          [new URL("../fixtures/host.mjs", import.meta.url).pathname, root, marker, locks],
          { stdio: "ignore" },
        );
        const exited = new Promise((r) => host.once("exit", r));
        // The command creates the marker, then writes it: wait for what it wrote.
        const wrote = () => (existsSync(marker) ? readFileSync(marker, "utf8") : "");
        for (let i = 0; i < 300 && wrote() === ""; i++) await sleep(20);
        expect(wrote()).toBe("ran\n");
        host.kill("SIGKILL");
        await exited;

        const before = (await readJournal(root)).records;
        const start = before.find((r) => r.type === "start" && r.command === "fx.main/marker");
        expect(start).toBeDefined();
        // Its start and its process, but no final.
        expect(
          before.filter((r) => r.invocationId === start!.invocationId).map((r) => r.type),
        ).toEqual(["start", "process"]);

        // The killed host's reserve for its finals is still there; recovery gives it back.
        const reserve = join(root, "journal", "live", `${start!.host}.reserve`);
        expect(existsSync(reserve)).toBe(true);
        const core = await openCore(state);
        expect(core.recovered).toEqual([start!.invocationId]);
        expect(existsSync(reserve)).toBe(false);
        await core.close();
        const after = (await readJournal(root)).records.filter(
          (r) => r.invocationId === start!.invocationId,
        );
        expect(
          after.map((r) => (r.type === "final" ? `${r.outcome}/${r.reason}` : r.type)),
        ).toEqual(["start", "process", "execution_failed/host_lost"]);
        // A second start-up finds nothing left to recover.
        const again = await openCore(state);
        expect(again.recovered).toEqual([]);
        await again.close();
        await sleep(300);
        expect(readFileSync(marker, "utf8")).toBe("ran\n");
      } finally {
        cleanup(work);
      }
    },
  );

  it("cuts off a torn last line and keeps appending whole records", async () => {
    const { state, root, work } = await makeState();
    try {
      const first = await openCore(state);
      await first.invoke(call("fx.main/hello", { name: "a" }));
      await first.close();
      // The single file of earlier versions, cut off mid-record by a crash.
      const file = join(root, "journal", "invocations.jsonl");
      appendFileSync(file, '{"type":"start","invoc');
      expect((await readJournal(root)).tornTailBytes).toBeGreaterThan(0);
      const second = await openCore(state);
      await second.invoke(call("fx.main/hello", { name: "b" }));
      await second.close();
      const contents = await readJournal(root);
      expect(contents.tornTailBytes).toBe(0);
      expect(contents.records.map((r) => r.type)).toEqual([
        "start",
        "process",
        "final",
        "start",
        "process",
        "final",
      ]);
    } finally {
      cleanup(work);
    }
  });

  it.each([
    ["not JSON", "nonsense\n"],
    ["duplicate keys", '{"type":"final","type":"final"}\n'],
    ["unknown record", '{"type":"other"}\n'],
    [
      "unknown reason",
      '{"type":"final","invocationId":"x","at":"t","host":"h","outcome":"succeeded","reason":"maybe"}\n',
    ],
    ["over the record limit", `${JSON.stringify({ type: "final", pad: "x".repeat(9_000) })}\n`],
  ])(
    "moves aside, and never refuses to start over, a lost segment with a line that is %s",
    async (_what, line) => {
      const { state, root, work } = await makeState();
      try {
        // A lost host's segment: one open start, then the damage.
        const start = JSON.stringify(
          startRecord("11111111-1111-4111-8111-111111111111", "lost-host"),
        );
        mkdirSync(join(root, "journal", "live"), { recursive: true });
        const lost = join(root, "journal", "live", "lost-host.jsonl");
        writeFileSync(lost, `${start}\n${line}`);
        await expect(readJournal(root)).rejects.toMatchObject({ code: "journal_corrupt" });
        const c = await createInvocationCore({ state, binding: binding() });
        expect(c.recovered).toEqual(["11111111-1111-4111-8111-111111111111"]);
        await c.close();
        // Its bytes are kept, aside; the journal reads whole again.
        expect(existsSync(lost)).toBe(false);
        const aside = readdirSync(join(root, "journal", "quarantine"));
        expect(aside).toHaveLength(1);
        expect(readFileSync(join(root, "journal", "quarantine", aside[0]!), "utf8")).toContain(
          line.trim().slice(0, 20),
        );
        await expect(readJournal(root)).resolves.toMatchObject({ tornTailBytes: 0 });
      } finally {
        cleanup(work);
      }
    },
  );

  it("drops the result kept for a call whose host was lost before its final: the journal says host_lost", async () => {
    const { state, root, work } = await makeState();
    try {
      const id = "22222222-2222-4222-8222-222222222222";
      mkdirSync(join(root, "journal", "live"), { recursive: true });
      writeFileSync(
        join(root, "journal", "live", "lost-host.000000.jsonl"),
        `${JSON.stringify(startRecord(id, "lost-host"))}\n`,
      );
      const kept = join(root, "journal", "results", `${id}.json`);
      mkdirSync(join(root, "journal", "results"), { recursive: true });
      writeFileSync(
        kept,
        JSON.stringify({ invocationId: id, result: { kind: "text", text: "x" } }),
      );
      const c = await createInvocationCore({ state, binding: binding() });
      expect(c.recovered).toEqual([id]);
      await c.close();
      expect(existsSync(kept)).toBe(false);
    } finally {
      cleanup(work);
    }
  });

  it("rejects a command of a disabled extension on the CLI as not_exposed", async () => {
    const { state, work } = await makeState();
    try {
      await state.disable("fx.hidden");
      const c = await openCore(state);
      expect(await c.invoke(call("fx.hidden/secret", {}, { surface: "cli" }))).toMatchObject({
        outcome: "rejected",
        reason: "not_exposed",
      });
      await c.close();
    } finally {
      cleanup(work);
    }
  });

  it("reads a missing journal as empty", async () => {
    expect((await readJournal("/nonexistent-rukh-state")).records).toEqual([]);
  });
});
