#!/usr/bin/env node
// Leaves the V8 code cache of the bundle for the Node that runs this script
// (dist/code-cache/<runtime>/<file>.v8, read by bin/code-cache.js; see
// docs/decisions/R18-commonjs-bundle.md), learned from runs of the built binary on a state directory with one extension: --version,
// help, a group's help, completion and a command run, each with the cache
// written as it exits. Each run keeps what the ones before it compiled, so
// the last caches hold all of it. Runs after scripts/bundle.mjs.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exposedState, fixturePreset, machine, managed, removeDir, str } from "@rukh/testkit";

const root = fileURLToPath(new URL("..", import.meta.url));
rmSync(`${root}dist/code-cache`, { recursive: true, force: true });
const made = await exposedState({
  prefix: "rukh-code-cache-",
  endpointNamespace: "warm",
  presets: { default: fixturePreset({ commands: ["fx.warm/*"], deadlineMs: 30_000 }) },
  packages: [
    {
      descriptor: {
        format: "rukh.extension/2",
        id: "fx.warm",
        version: "1.0.0",
        publisher: "acme",
        groups: [{ path: ["warm"], summary: "Warm-up commands" }],
        commands: [
          {
            id: "up",
            path: ["warm", "up"],
            summary: "Answer",
            inputs: [str("name", { default: "x" })],
            execute: managed({ kind: "text" }, "bin/up.mjs"),
            machine: machine(),
          },
        ],
      },
      programs: {
        "bin/up.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.warm/up": (ctx) => textResult(ctx.inputs.name) } });
`,
      },
    },
  ],
});
try {
  for (const args of [
    ["--version"],
    ["--help"],
    ["warm", "--help"],
    ["__complete", "--", "warm", "u"],
    ["warm", "up", "--name", "y"],
  ])
    execFileSync(process.execPath, [`${root}bin/rukh`, ...args], {
      env: { PATH: process.env.PATH, RUKH_HOME: made.root, RUKH_CODE_CACHE: "write" },
      stdio: "ignore",
    });
} finally {
  removeDir(made.work);
}
