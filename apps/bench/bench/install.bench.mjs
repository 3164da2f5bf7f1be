// Installing with `rukh ext install` into a profile of 999 extensions (9,990
// commands) against installing into an empty one, in the same run: each
// sample installs the next version of one more extension, so both sides do
// the same work except for what is already installed. Target: the 1,000th
// extension ≤ 1.2× the install into an empty profile.
import { join } from "node:path";
import { RUKH, run, state, WORK, writePackage } from "./_fixtures.mjs";

const SAMPLES = 10;
const WARMUP = 2;

export default async function install(suite) {
  const full = await state(9_990, 10);
  const empty = await state(0, 10);
  const versions = [];
  for (let v = 1; v <= SAMPLES + WARMUP; v++)
    versions.push(
      await writePackage(join(WORK, "new", `v${v}`), {
        id: "bench.new",
        group: "new",
        commands: 10,
        version: `1.0.${v}`,
      }),
    );
  const installer = (s) => {
    let next = 0;
    return () => run(RUKH, ["ext", "install", versions[next++]], s.env);
  };
  await suite.compare("install: rukh ext install of one extension (10 commands)", {
    baseline: ["into an empty profile", installer(empty)],
    cases: [["into a profile of 999 extensions (the 1,000th)", installer(full)]],
    samples: SAMPLES,
    warmup: WARMUP,
    note: "target: ≤ 1.2×",
  });
}
