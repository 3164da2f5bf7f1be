// What confinement costs per call: a trivial Node command under the strict
// profile (bubblewrap, namespaces, prlimit, Node's permission model) against
// the same command host-trusted, through the same core in the same run; and
// the cross-process concurrency slot every call takes. Run alone with
// `pnpm bench confinement`.
import { realpathSync, rmSync } from "node:fs";
import { stateLocks } from "@rukh/profile";
import { describeConfinement } from "../dist/index.js";
import { acquireSlot } from "../dist/process/_slots.js";
import { viaCore as invoke, setup } from "./core.bench.mjs";

export default async function run(suite) {
  const confinement = await describeConfinement();
  if (!confinement.strict.available) {
    process.stderr.write(`bench: confinement skipped: ${confinement.strict.reason}\n`);
    return;
  }
  const { work, core, strict, plain } = await setup({ strict: true });
  try {
    await suite.compare("confinement: trivial Node command, end to end", {
      baseline: [
        "core.invoke, host-trusted, process group only (no sandbox program)",
        () => invoke(plain),
      ],
      cases: [
        [
          `core.invoke, host-trusted as this machine runs it (${confinement.hostTrustedTree.mechanism})`,
          () => invoke(core),
        ],
        ["core.invoke, strict (bubblewrap + prlimit + permission model)", () => invoke(strict)],
      ],
      samples: 40,
      note: "target: strict ≤ 1.25× host-trusted",
    });
    const locks = stateLocks(realpathSync(work));
    const held = await Promise.all([0, 1, 2].map(() => acquireSlot(locks, "bench", 16)));
    const slot = await suite.compare("confinement: shared concurrency slot", {
      baseline: ["an empty async step", async () => {}],
      cases: [
        [
          "take and give back a slot of 16 with 3 held by others",
          async () => (await acquireSlot(locks, "bench", 16)).release(),
        ],
      ],
      samples: 200,
      batch: 10,
      note: "target ≤ 1 ms added per call",
    });
    for (const s of held) s.release();
    suite.report(
      "confinement: shared concurrency slot",
      "added per call, as a ratio to the 1 ms budget",
      slot.cases[0] - slot.baseline,
      1,
    );
  } finally {
    await core.close();
    await strict.close();
    await plain.close();
    rmSync(work, { recursive: true, force: true });
  }
}
