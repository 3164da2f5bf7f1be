// Core overhead per invocation: a trivial managed command through
// createInvocationCore().invoke (pin, validate, admit, journal start + final
// with fsync, spawn, channel, diagnostics, completion validation, cleanup)
// against the bare @rukh/ipc spawn + invoke of the same stored program, in the
// same run. Run alone with `node packages/core/bench/core.bench.mjs` or through
// `pnpm bench core`.
import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StateDirectory, signPackage } from "@rukh/profile";
import {
  bareIpcInvocation,
  ipcRuntimeUrl,
  FIXTURE_KEY as key,
  FIXTURE_PUB as pub,
} from "@rukh/testkit";
import { createInvocationCore } from "../dist/index.js";

const ipcUrl = ipcRuntimeUrl();

const PROGRAM = `import { runCommandProcess, textResult } from ${JSON.stringify(ipcUrl)};
await runCommandProcess({ handlers: {
  "bench.core/noop": () => textResult("ok"),
  "bench.core/wait": (ctx) => new Promise((r) => setTimeout(() => r(textResult("ok")), ctx.inputs.ms)),
} });
`;

/** A state directory with the bench extension installed and a core on it (and one on a strict preset, if asked). */
export async function setup({ strict = false, journal } = {}) {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "rukh-core-bench-")));
  const pkg = join(work, "pkg");
  mkdirSync(join(pkg, "bin"), { recursive: true });
  writeFileSync(
    join(pkg, "rukh-extension.json"),
    JSON.stringify({
      format: "rukh.extension/2",
      id: "bench.core",
      version: "1.0.0",
      publisher: "acme",
      commands: [
        { id: "noop", summary: "Nothing", inputs: [] },
        {
          id: "wait",
          summary: "Wait",
          inputs: [
            {
              id: "ms",
              type: "integer",
              minimum: 0,
              maximum: 60_000,
              summary: "ms",
              required: true,
            },
          ],
        },
      ].map((c) => ({
        ...c,
        path: [c.id],
        execute: {
          mapping: "managed",
          program: "bin/cmd.mjs",
          runtime: "node",
          result: { kind: "text" },
        },
        machine: {
          eligible: true,
          interaction: "none",
          requiredFeatures: ["rukh.command-result/1"],
        },
      })),
    }),
  );
  writeFileSync(join(pkg, "bin", "cmd.mjs"), PROGRAM);
  await signPackage(pkg, key, { publisher: "acme" });
  const state = new StateDirectory(join(work, "home"));
  await state.setConfig(
    JSON.stringify({
      brand: "bench",
      endpointNamespace: "bench",
      trustedPublishers: [{ id: "acme", publicKey: pub, namespaces: ["acme.*", "bench.*"] }],
      exposure: { extensions: ["bench.core"] },
      presets: Object.fromEntries(
        ["host-trusted", "strict"].map((enforcement) => [
          enforcement === "strict" ? "strict" : "default",
          {
            commands: ["bench.core/*"],
            actions: [],
            resources: [],
            deadlineMs: 60_000,
            maxConcurrency: 16,
            enforcement,
          },
        ]),
      ),
      defaultPreset: "default",
      ...(journal !== undefined && { journal }),
    }),
  );
  const { revision } = await state.install(pkg);
  const digest = revision.extensions[0].digest;
  const program = join(realpathSync(join(state.root, "store", digest)), "bin", "cmd.mjs");
  const open = (preset, extra = {}) =>
    createInvocationCore({
      state,
      binding: { subject: "bench", actor: "bench", taskAuthorityRef: "bench", preset },
      ...extra,
    });
  const core = await open("default");
  return {
    work,
    state,
    core,
    program,
    ...(strict && {
      strict: await open("strict"),
      plain: await open("default", { sandboxProgram: null }),
    }),
  };
}

/** The trivial call every core bench times. */
export const noop = {
  command: { identity: "bench.core/noop" },
  supplied: { values: new Map() },
  surface: "mcp",
};

/** Runs {@link noop} through a core; anything but success fails the bench. */
export async function viaCore(core) {
  const o = await core.invoke(noop);
  if (o.outcome !== "succeeded") throw new Error(`core invocation: ${o.outcome}/${o.reason}`);
}

const invalid = {
  command: { identity: "bench.core/wait" },
  supplied: { values: new Map() },
  surface: "mcp",
};

/** Host RSS per concurrent invocation: 16 calls that each wait 1.5 s. */
async function memoryPerInvocation(core) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  await Promise.all(
    Array.from({ length: 16 }, () =>
      core.invoke({
        ...noop,
        command: { identity: "bench.core/wait" },
        supplied: { values: new Map([["ms", 1_500]]) },
      }),
    ),
  );
  clearInterval(timer);
  return (peak - before) / 16;
}

export default async function run(suite) {
  const { work, core, program } = await setup();
  try {
    const r = await suite.compare("core: trivial managed command, end to end", {
      baseline: [
        "bare @rukh/ipc spawn + invoke + completion of the same program",
        () => bareIpcInvocation(program, "bench.core/noop"),
      ],
      cases: [
        [
          "core.invoke: pin, admit, journal (2× fsync), run, validate, clean up",
          () => viaCore(core),
        ],
      ],
      samples: 60,
      note: "target: overhead ≤ 2 ms beyond the launch the confinement bench measures (pid namespace, prlimit)",
    });
    suite.report(
      "core: trivial managed command, end to end",
      "overhead (core median − bare median)",
      r.cases[0] - r.baseline,
    );
    const scratch = openSync(join(work, "fsync-probe"), "a");
    const line = Buffer.from(`${"x".repeat(300)}\n`);
    await suite.compare("core: in-process cost, no process spawned", {
      baseline: [
        "one 300-byte append + fdatasync (what each journal record costs)",
        () => {
          writeSync(scratch, line);
          fdatasyncSync(scratch);
        },
      ],
      cases: [
        [
          "core.invoke of a call rejected after validation (pin, resolve, validate, 1 journal record)",
          () => core.invoke(invalid),
        ],
      ],
      samples: 200,
    });
    closeSync(scratch);
    const perCall = await memoryPerInvocation(core);
    suite.report(
      "core: memory",
      "host RSS growth per concurrent invocation (16 at once, sampled every 50 ms)",
      Math.max(0, perCall) / 1024,
      undefined,
      "KiB, not ms",
    );
  } finally {
    await core.close();
    rmSync(work, { recursive: true, force: true });
  }
}
