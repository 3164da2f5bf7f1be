// What a CLI call pays for history: open a core (recovery), run a trivial
// command, close (archive and retention), on a state directory with 1 GiB of
// journal history against the same on one with none, in the same run. Run
// alone with `pnpm bench journal`.
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "@rukh/json";
import { createInvocationCore, listRuns } from "../dist/index.js";
import { noop, setup } from "./core.bench.mjs";

const HISTORY_BYTES = 1 << 30;
const SEGMENT = 8 << 20;

/** Fills `archive/` with finished calls: start, process and final records, 8 MiB per segment. */
function writeHistory(root) {
  const dir = join(root, "journal", "archive");
  mkdirSync(dir, { recursive: true });
  const lines = [];
  let size = 0;
  for (let i = 0; size < SEGMENT; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const at = "2026-12-01T00:00:00.000Z";
    for (const r of [
      {
        type: "start",
        invocationId: id,
        at,
        host: "h",
        pid: 1,
        command: "bench.core/noop",
        revisionId: "r",
        digest: "d",
        surface: "cli",
        subject: "s",
        actor: "a",
        taskAuthorityRef: "t",
        preset: "default",
      },
      { type: "process", invocationId: id, host: "h", pid: 2, pgid: 2, startTime: "1" },
      {
        type: "final",
        invocationId: id,
        at,
        host: "h",
        outcome: "succeeded",
        reason: "completed",
        command: "bench.core/noop",
      },
    ]) {
      const line = `${canonicalJson(r)}\n`;
      lines.push(line);
      size += Buffer.byteLength(line);
    }
  }
  const chunk = Buffer.from(lines.join(""));
  for (let n = 1; n <= HISTORY_BYTES / SEGMENT; n++) {
    const fd = openSync(join(dir, `${String(n).padStart(10, "0")}.jsonl`), "w");
    writeSync(fd, chunk);
    closeSync(fd);
  }
}

export default async function run(suite) {
  const empty = await setup();
  const full = await setup({ journal: { maxAgeDays: 36_500, maxBytes: 4 * HISTORY_BYTES } });
  await empty.core.close();
  await full.core.close();
  writeHistory(full.state.root);
  const binding = {
    subject: "bench",
    actor: "bench",
    taskAuthorityRef: "bench",
    preset: "default",
  };
  const call = async (state) => {
    const core = await createInvocationCore({ state, binding });
    const o = await core.invoke(noop);
    await core.close();
    if (o.outcome !== "succeeded") throw new Error(`${o.outcome}/${o.reason}`);
  };
  try {
    await suite.compare("journal: a CLI call's core (open, recover, run, close, archive)", {
      baseline: ["with no journal history", () => call(empty.state)],
      cases: [["with 1 GiB of journal history", () => call(full.state)]],
      samples: 30,
      note: "target ≤ 1.05×",
    });
    await suite.compare("journal: rukh runs list --limit 50 (in process)", {
      baseline: ["with no journal history", () => listRuns(empty.state.root, { limit: 50 })],
      cases: [["with 1 GiB of journal history", () => listRuns(full.state.root, { limit: 50 })]],
      samples: 20,
      note: "target ≤ 100 ms",
    });
  } finally {
    rmSync(empty.work, { recursive: true, force: true });
    rmSync(full.work, { recursive: true, force: true });
  }
}
