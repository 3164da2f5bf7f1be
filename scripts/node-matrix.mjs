#!/usr/bin/env node
// The end-to-end suites a user meets, run again on every other Node release
// line Rukh supports (the full suite runs on the machine's Node first, in
// `pnpm test`). Each version is the npm registry's `node` package, installed
// once per machine into a folder of the temporary directory; its `node`
// runs the test runner, and so the CLI, the MCP hosts and every command
// they start. The suites: a CLI run, strict and host-trusted calls, doctor,
// MCP over stdio and HTTP, the child runtime, the harness and `ext test`,
// `ext init` skeletons, the demo and a newcomer's scaffolded brand.
//
// Without the npm registry the versions it cannot install are skipped and
// named (under `CI` that fails instead). A Node too old for Rukh is
// installed too, to see the CLI refuse it in one line.
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installNode, NODE_LINES, TOO_OLD_NODE } from "./node-lines.mjs";

/** Per package, the test files that run on every line. */
const SUITES = {
  "packages/ipc": ["test/host.test.ts"],
  "packages/core": [
    "test/process/launch.test.ts",
    "test/process/strict.test.ts",
    "test/process/processes.test.ts",
    "test/process/ready.test.ts",
    "test/call/channel-end.test.ts",
  ],
  "packages/harness": ["test/harness.test.ts"],
  "apps/reference-cli": [
    "test/node.test.ts",
    "test/cli.test.ts",
    "test/code-cache.test.ts",
    "test/author/ext-test.test.ts",
    "test/author/author.test.ts",
    "test/author/types.test.ts",
    "test/demo.test.ts",
    "test/mcp-serve.test.ts",
    "test/mcp-http.test.ts",
  ],
  "packages/create-rukh-cli": ["test/newcomer.test.ts"],
};

const root = fileURLToPath(new URL("..", import.meta.url));
const inCi = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

/** How many suites run at once: their waits (processes, timers) overlap on two cores. */
const AT_ONCE = Number(process.env.RUKH_MATRIX_JOBS ?? 2);

/**
 * Runs one package's suites on `node`; whether they passed, how long they
 * took, and their output (kept whole and printed when the run ends, so that
 * runs side by side do not interleave).
 */
function runSuites(node, pkg, files) {
  const started = Date.now();
  const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
  return new Promise((done) => {
    const child = spawn(node, [vitest, "run", ...files], {
      cwd: join(root, pkg),
      stdio: ["ignore", "pipe", "pipe"],
      // Whatever the suites start through PATH (the CLI's `#!/usr/bin/env node`, npm) is this Node too.
      env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? "/usr/bin:/bin"}` },
    });
    const out = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => out.push(d));
    child.on("close", (code) =>
      done({ ok: code === 0, seconds: (Date.now() - started) / 1000, output: Buffer.concat(out) }),
    );
  });
}

/** Runs `jobs` (functions returning promises) at most `limit` at a time, in order of start. */
async function pool(jobs, limit) {
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, lane));
}

/** The CLI on a Node too old for it: one line naming what it needs, exit 1. */
function refusesTooOld(node) {
  const r = spawnSync(node, [join(root, "apps/reference-cli/bin/rukh"), "--version"], {
    encoding: "utf8",
  });
  const expected = `rukh: Node.js v${TOO_OLD_NODE} is too old; rukh needs Node.js 20.19 or later (20.19+, 22.12+, 24 or 26)\n`;
  return r.status === 1 && r.stdout === "" && r.stderr === expected
    ? null
    : `exit ${r.status}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}`;
}

const rows = [];
const problems = [];
let failed = false;
const old = installNode(TOO_OLD_NODE);
if ("reason" in old) problems.push(old.reason);
else {
  const wrong = refusesTooOld(old.node);
  rows.push(
    `node ${TOO_OLD_NODE}: ${wrong === null ? "refused in one line, as it should be" : `FAILED: ${wrong}`}`,
  );
  if (wrong !== null) failed = true;
}
const jobs = [];
for (const version of NODE_LINES) {
  const installed = installNode(version);
  if ("reason" in installed) {
    problems.push(installed.reason);
    rows.push(`node ${version}: skipped (${installed.reason.split("\n")[0]})`);
    continue;
  }
  for (const [pkg, files] of Object.entries(SUITES))
    jobs.push(async () => {
      const { ok, seconds, output } = await runSuites(installed.node, pkg, files);
      process.stdout.write(`\n=== node ${version}: ${pkg} ${files.join(" ")}\n`);
      process.stdout.write(output);
      rows.push(`node ${version}: ${pkg} ${ok ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s`);
      if (!ok) failed = true;
    });
}
const matrixStarted = Date.now();
await pool(jobs, AT_ONCE);
rows.push(
  `${jobs.length} suites, ${AT_ONCE} at a time: ${((Date.now() - matrixStarted) / 1000).toFixed(1)} s`,
);
console.log(`\nNode release lines:\n${rows.map((r) => `  ${r}`).join("\n")}`);
for (const p of problems) console.log(`  ${inCi ? "error" : "skipped"}: ${p}`);
if (failed || (inCi && problems.length > 0)) process.exit(1);
