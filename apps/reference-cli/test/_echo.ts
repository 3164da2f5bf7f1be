import { exposedState, fixturePreset, machine, managed, removeDir, str } from "@rukh/testkit";
import { afterAll, beforeAll } from "vitest";

/**
 * A state directory made before a file's tests and removed after them, with
 * one signed extension, `fx.echo`, whose `say --name <text>` answers the
 * text; its default preset allows it. `more` gives other presets (over
 * `fx.echo/*`, by enforcement) and the rest of the owner configuration.
 */
export function useEchoState(
  prefix: string,
  more: {
    readonly presets?: Readonly<Record<string, "strict" | "host-trusted">>;
    readonly config?: object;
  } = {},
): { root: string; work: string } {
  const preset = (enforcement: string) =>
    fixturePreset({ commands: ["fx.echo/*"], deadlineMs: 30_000, enforcement });
  const at = { root: "", work: "" };
  beforeAll(async () => {
    Object.assign(
      at,
      await exposedState({
        prefix,
        endpointNamespace: "acme-echo",
        presets: {
          default: preset("host-trusted"),
          ...Object.fromEntries(
            Object.entries(more.presets ?? {}).map(([name, e]) => [name, preset(e)]),
          ),
        },
        ...(more.config !== undefined && { config: more.config }),
        packages: [
          {
            descriptor: {
              format: "rukh.extension/2",
              id: "fx.echo",
              version: "1.0.0",
              publisher: "acme",
              commands: [
                {
                  id: "say",
                  path: ["say"],
                  summary: "Say a name back",
                  inputs: [str("name", { required: true })],
                  execute: managed({ kind: "text" }, "bin/say.mjs"),
                  machine: machine(),
                },
              ],
            },
            programs: {
              "bin/say.mjs": `import { runCommandProcess, textResult } from "@rukh/ipc";
await runCommandProcess({ handlers: { "fx.echo/say": (ctx) => textResult(ctx.inputs.name) } });
`,
            },
          },
        ],
      }),
    );
  });
  afterAll(() => removeDir(at.work));
  return at;
}
