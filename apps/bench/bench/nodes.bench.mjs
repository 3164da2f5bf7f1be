// Start-up on every supported Node release line, as users of each feel it
// (the bench runs on the active LTS; see scripts/bench.mjs):
// the shipped binary's `--help` and a trivial run (10 commands installed)
// against that same Node's `node -e ''`, each line measured in its own group
// of this run. The build's code cache serves only the Node that ran the
// build; every other line compiles the bundle as it loads it.
//
// The other lines are the npm registry's `node` packages (installed once per
// machine); a line that cannot be installed is reported and skipped.

import { spawnSync } from "node:child_process";
import { installNode, NODE_LINES } from "../../../scripts/node-lines.mjs";
import { RUKH, run, state } from "./_fixtures.mjs";

export default async function nodes(suite) {
  const s10 = await state(10, 10);
  // The bench's own Node first (the active LTS, see scripts/bench.mjs), then every other line.
  const lines = [["the bench's", process.execPath, process.version]];
  for (const version of NODE_LINES) {
    if (`v${version}` === process.version) continue;
    const got = installNode(version);
    if ("reason" in got) console.log(`nodes.bench: skipping Node ${version}: ${got.reason}`);
    else lines.push(["the registry's", got.node, `v${version}`]);
  }
  // The Node the bench was started with (the machine's, 20 here), when it is another.
  const first = process.env.RUKH_BENCH_FIRST_NODE;
  if (first !== undefined && first !== process.execPath) {
    const v = spawnSync(first, ["--version"], { encoding: "utf8" });
    if (v.status === 0) lines.push(["the machine's", first, v.stdout.trim()]);
    else console.log(`nodes.bench: skipping ${first}: it does not run (${v.error ?? v.stderr})`);
  }
  for (const [whose, node, version] of lines)
    await suite.compare(`startup on ${whose} Node ${version} (10 commands)`, {
      baseline: [`node -e ''`, () => run(node, ["-e", ""])],
      cases: [
        ["rukh --help", () => run(node, [RUKH, "--help"], s10.env)],
        ["rukh e0 c0 (a run)", () => run(node, [RUKH, "e0", "c0", "--name", "x"], s10.env)],
      ],
      samples: 11,
      note: "same Node on both sides",
    });
}
