// `preset`: what each task preset may run, and its bounds. Its steps: list,
// show, and allow or deny commands — each change one publication of the
// owner configuration. It imports the kit room.

import type { CliBuiltin } from "@rukh/cli";
import type { TaskPreset } from "@rukh/profile";
import {
  type AdminBody,
  arg,
  args,
  candidates,
  current,
  many,
  OK,
  presetOf,
  print,
  publishConfig,
  text,
  texts,
} from "../kit/index.js";

const PRESET = arg("preset", "The task preset's name", 0, { maxLength: 64 });

/** The `preset` commands. */
export function presetBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["preset", "list"],
      summary: "List task presets",
      inputs: [],
      run: guarded(async (ctx, state) => {
        const { config } = await current(state, brand);
        const lines = Object.entries(config.presets).map(
          ([name, p]) =>
            `${name}${name === config.defaultPreset ? " (default)" : ""}  ${p.enforcement}  deadline ${p.deadlineMs} ms  concurrency ${p.maxConcurrency}  ${p.commands.length} command patterns`,
        );
        print(ctx, lines.join("\n"), config.presets);
        return OK;
      }),
    },
    {
      path: ["preset", "show"],
      summary: "Show one task preset",
      inputs: [PRESET],
      suggest: (_id, stateDir) => candidates(stateDir, "presets"),
      run: guarded(async (ctx, state, profile) => {
        const { config } = await current(state, brand);
        const preset = presetOf(profile, config, text(ctx.inputs, "preset")!);
        print(ctx, JSON.stringify(preset, null, 2), preset);
        return OK;
      }),
    },
    ...(["allow", "deny"] as const).map(
      (op): CliBuiltin => ({
        path: ["preset", op],
        summary:
          op === "allow"
            ? "Allow a preset a command (<ext>/<cmd>) or extension (<ext>/*), and the actions/resources commands request"
            : "Take a command pattern, action or resource away from a preset",
        inputs: [
          PRESET,
          args(
            "patterns",
            "Commands <ext>/<cmd>, or <ext>/* for all of an extension's: all in one publication",
            { position: 1, maxItems: 64, minItems: 0, maxLength: 512 },
          ),
          many("action", "An action the preset grants"),
          many("resource", "A resource the preset grants"),
        ],
        suggest: (id, stateDir) =>
          id === "preset"
            ? candidates(stateDir, "presets")
            : id === "patterns"
              ? candidates(stateDir, "commands")
              : [],
        run: guarded(async (ctx, state, profile) => {
          const name = text(ctx.inputs, "preset")!;
          const pick = (key: "action" | "resource") => texts(ctx.inputs, key);
          const edit = (list: readonly string[], items: readonly string[]) =>
            op === "allow"
              ? [...new Set([...list, ...items])]
              : list.filter((x) => !items.includes(x));
          const from = await current(state, brand);
          const p = presetOf(profile, from.config, name);
          const changed: TaskPreset = {
            ...p,
            commands: edit(p.commands, texts(ctx.inputs, "patterns")),
            actions: edit(p.actions, pick("action")),
            resources: edit(p.resources, pick("resource")),
          };
          const presets = { ...from.config.presets, [name]: changed };
          return publishConfig(ctx, state, {
            from,
            config: { ...from.config, presets },
            what: `updated preset ${name}`,
          });
        }),
      }),
    ),
  ];
}
