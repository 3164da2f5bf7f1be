// Start-up as users feel it: the shipped `rukh` binary spawned with a clean
// environment, against the process floors measured in the same run (`node -e
// ''` for help and completion; a node parent spawning a node child for a
// command run) and against an oclif 4 CLI with its manifest.
//
// Targets (on Node 26, the bench's own): help, a group's help and
// completion ≤ 1.3× `node -e ''` at 10 and at 10,000 commands, ≤ 1.4× at
// 10,000 spread over 1,000 extensions; a trivial run with 10 installed ≤ 1.5×
// the parent → child floor and ≤ 0.8× oclif's run, host-trusted and strict
// (in bubblewrap; said and skipped where it cannot run) both reported; at
// 10,000 installed ≤ 1.1× the 10-installed run, in both layouts.

import { cleanEnv, RUKH, run, state } from "./_fixtures.mjs";
import { oclifCli } from "./_peers.mjs";

const NODE = process.execPath;
const floorChild = `require("node:child_process").spawnSync(process.execPath, ["-e", ""], { stdio: "inherit" })`;

export default async function startup(suite) {
  const s10 = await state(10, 10);
  const s1k = await state(1_000, 100);
  const s10k = await state(10_000, 100);
  const s10kx10 = await state(10_000, 10);
  const ocl10 = await oclifCli(10);
  const strict = await strictRuns();
  const rukh =
    (s, ...args) =>
    () =>
      run(RUKH, args, s.env);

  await suite.compare("startup: help and completion (rukh, clean environment)", {
    baseline: ["node -e ''", () => run(NODE, ["-e", ""])],
    cases: [
      ["rukh --help, 10 commands", rukh(s10, "--help")],
      ["rukh --help, 1,000 commands (100 per extension)", rukh(s1k, "--help")],
      ["rukh --help, 10,000 commands (100 per extension)", rukh(s10k, "--help")],
      ["rukh --help, 10,000 commands (10 per extension)", rukh(s10kx10, "--help")],
      ["rukh e5 --help (a group), 10,000 commands", rukh(s10k, "e5", "--help")],
      ["rukh __complete e5 c, 10,000 commands", rukh(s10k, "__complete", "--", "e5", "c")],
      ["oclif --help, 10 commands", () => run(NODE, [ocl10, "--help"], cleanEnv())],
    ],
    samples: 15,
    note: "targets: ≤ 1.3× (≤ 1.4× over 1,000 extensions)",
  });

  const runs = await suite.compare("startup: run a trivial command (rukh e0 c0)", {
    baseline: ["node parent → node child", () => run(NODE, ["-e", floorChild])],
    cases: [
      ["rukh e0 c0, 10 installed", rukh(s10, "e0", "c0", "--name", "x")],
      ...(strict === undefined
        ? []
        : [
            [
              "rukh e0 c0, 10 installed, strict (in bubblewrap)",
              rukh(strict, "e0", "c0", "--name", "x"),
            ],
          ]),
      ["rukh e0 c0, 10,000 installed (100 per extension)", rukh(s10k, "e0", "c0", "--name", "x")],
      ["rukh e0 c0, 10,000 installed (10 per extension)", rukh(s10kx10, "e0", "c0", "--name", "x")],
      [
        "oclif e0 c0 (in process), 10 commands",
        () => run(NODE, [ocl10, "e0", "c0", "--name", "x"], cleanEnv()),
      ],
    ],
    samples: 15,
    note: "targets: ≤ 1.5× the floor, ≤ 0.8× oclif",
  });
  const cases = [...runs.cases];
  const strictMs = strict === undefined ? undefined : cases.splice(1, 1)[0];
  const [at10, at10k, at10kx10, oclif] = cases;
  suite.report(
    "startup: run a trivial command (rukh e0 c0)",
    "rukh, 10,000 (100/ext) ÷ 10 installed",
    at10k,
    at10,
  );
  suite.report(
    "startup: run a trivial command (rukh e0 c0)",
    "rukh, 10,000 (10/ext) ÷ 10 installed",
    at10kx10,
    at10,
  );
  suite.report(
    "startup: run a trivial command (rukh e0 c0)",
    "rukh ÷ oclif, 10 installed",
    at10,
    oclif,
  );
  if (strictMs !== undefined)
    suite.report(
      "startup: run a trivial command (rukh e0 c0)",
      "rukh, strict ÷ oclif, 10 installed",
      strictMs,
      oclif,
    );

  // oclif reads a 10,000-command manifest on every start: a few samples say enough.
  const ocl10k = await oclifCli(10_000);
  await suite.compare("startup: peers at 10,000 commands", {
    baseline: ["rukh --help, 10,000 commands", rukh(s10k, "--help")],
    cases: [
      ["oclif --help, 10,000 commands", () => run(NODE, [ocl10k, "--help"], cleanEnv())],
      [
        "oclif e0 c0, 10,000 commands",
        () => run(NODE, [ocl10k, "e0", "c0", "--name", "x"], cleanEnv()),
      ],
      ["rukh e0 c0, 10,000 installed", rukh(s10k, "e0", "c0", "--name", "x")],
    ],
    samples: 3,
    warmup: 1,
  });
}

/**
 * A state of 10 commands whose CLI calls run under the strict preset, once
 * such a call succeeds; otherwise (bubblewrap cannot run here) undefined,
 * and why is printed.
 */
async function strictRuns() {
  const s = await state(10, 10, "agent");
  try {
    run(RUKH, ["e0", "c0", "--name", "x"], s.env);
    return s;
  } catch (e) {
    console.log(`startup.bench: a strict run is not measured: ${e.message}`);
    return undefined;
  }
}
