import {
  type FixtureState,
  fixtureOwnerConfig,
  fixturePreset,
  fixtureState,
  int,
  machine,
  managed,
  writeFixturePackage,
} from "@rukh/testkit";

/**
 * A state directory with one signed extension, `fx.sleep`, whose `nap`
 * command sleeps `--wait-ms` (default `defaultMs`) and answers "slept"; its
 * default preset allows it, `maxConcurrency` at a time.
 */
export async function sleeperState(options: {
  prefix: string;
  defaultMs: number;
  maxConcurrency: number;
  config?: object;
}): Promise<FixtureState> {
  return fixtureState({
    prefix: options.prefix,
    config: fixtureOwnerConfig({
      endpointNamespace: "acme-cli-sleeper",
      exposure: { extensions: ["fx.sleep"] },
      presets: {
        default: fixturePreset({
          commands: ["fx.sleep/*"],
          deadlineMs: 30_000,
          maxConcurrency: options.maxConcurrency,
        }),
      },
      ...options.config,
    }),
    packages: async (dir) => [
      await writeFixturePackage({
        parent: dir,
        descriptor: {
          format: "rukh.extension/2",
          id: "fx.sleep",
          version: "1.0.0",
          publisher: "acme",
          commands: [
            {
              id: "nap",
              path: ["nap"],
              summary: "Sleep a while",
              inputs: [int("wait_ms", { default: options.defaultMs })],
              execute: managed({ kind: "text" }, "bin/nap.mjs"),
              machine: machine(),
            },
          ],
        },
        programs: {
          "bin/nap.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.sleep/nap": async (ctx) => {
  await new Promise((r) => setTimeout(r, ctx.inputs.wait_ms));
  return textResult("slept");
} } });
`,
        },
      }),
    ],
    install: "each",
  });
}
