// `preset`: what each task preset may run, and its bounds. Its steps: list,
// show, allow or deny commands, and record the owner's consent to give a
// host-trusted preset to agents — each change one publication of the owner
// configuration. It imports the kit room.

import type { CliBuiltin } from "@rukh/cli";
import type { TaskPreset } from "@rukh/profile";
import {
  type AdminBody,
  arg,
  args,
  bool,
  candidates,
  current,
  many,
  OK,
  presetOf,
  print,
  publishConfig,
  text,
  texts,
  UsageError,
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
    {
      path: ["preset", "consent"],
      changesState: true,
      summary:
        "Record your consent to give a host-trusted preset to agents (MCP), in your words, or withdraw it",
      inputs: [
        PRESET,
        arg("consent", "One line saying what agents given this preset may do, as you", 1, {
          maxLength: 300,
          required: false,
        }),
        bool("withdraw", "Withdraw the consent: agents are no longer given this preset"),
      ],
      suggest: (id, stateDir) => (id === "preset" ? candidates(stateDir, "presets") : []),
      run: guarded(async (ctx, state, profile) => {
        const name = text(ctx.inputs, "preset")!;
        const words = text(ctx.inputs, "consent");
        const withdraw = ctx.inputs.withdraw === true;
        if ((words === undefined) === !withdraw)
          throw new UsageError(
            withdraw
              ? "--withdraw takes no consent text; expected one or the other"
              : `expected the consent, one line saying what agents given preset ${name} may do (or --withdraw)`,
          );
        const from = await current(state, brand);
        const p = presetOf(profile, from.config, name);
        if (p.enforcement === "strict" && !withdraw)
          throw new UsageError(
            `preset ${name} runs strict: agents are given it without consent; expected a host-trusted preset`,
          );
        const { agentConsent: _, ...rest } = p;
        const changed: TaskPreset = withdraw ? rest : { ...rest, agentConsent: words! };
        const presets = { ...from.config.presets, [name]: changed };
        return publishConfig(ctx, state, {
          from,
          config: { ...from.config, presets },
          what: withdraw
            ? `withdrew the consent to give preset ${name} to agents`
            : `recorded the consent to give preset ${name} to agents`,
        });
      }),
    },
    ...(["allow", "deny"] as const).map(
      (op): CliBuiltin => ({
        path: ["preset", op],
        changesState: true,
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
