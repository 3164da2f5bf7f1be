// `preset`: what each task preset may run, and its bounds.

import type { CliBuiltin } from "@rukh/cli";
import { type OwnerConfig, presetNamed, type TaskPreset } from "@rukh/profile";
import { current, publishConfig } from "./_current.js";
import { type AdminBody, OK, parse, print, UsageError } from "./_kit.js";

/** The preset an owner named; a name that is not a preset (`__proto__` included) is a usage error. */
function presetOf(config: OwnerConfig, name: string): TaskPreset {
  const preset = presetNamed(config, name);
  if (preset === undefined)
    throw new UsageError(
      `no preset ${JSON.stringify(name)}; expected one of ${Object.keys(config.presets).join(", ")}`,
    );
  return preset;
}

/** The `preset` commands. */
export function presetBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["preset", "list"],
      summary: "List task presets",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const { config } = await current(home, brand);
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
      usage: "<preset>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const { config } = await current(home, brand);
        const preset = presetOf(config, positionals[0]!);
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
        usage: "<preset> [<pattern>] [--action <name>]… [--resource <name>]…",
        run: guarded(async (ctx, home) => {
          const { positionals, values } = parse(
            ctx.args,
            {
              action: { type: "string", multiple: true },
              resource: { type: "string", multiple: true },
            },
            -1,
          );
          const [name, pattern, ...rest] = positionals as [string, string | undefined, ...string[]];
          if (name === undefined || rest.length > 0)
            throw new UsageError("expected a preset name and at most one command pattern");
          const pick = (key: "action" | "resource") => (values[key] as string[] | undefined) ?? [];
          const edit = (list: readonly string[], items: readonly string[]) =>
            op === "allow"
              ? [...new Set([...list, ...items])]
              : list.filter((x) => !items.includes(x));
          const from = await current(home, brand);
          const p = presetOf(from.config, name);
          const changed: TaskPreset = {
            ...p,
            commands: edit(p.commands, pattern === undefined ? [] : [pattern]),
            actions: edit(p.actions, pick("action")),
            resources: edit(p.resources, pick("resource")),
          };
          const presets = { ...from.config.presets, [name]: changed };
          return publishConfig(
            ctx,
            home,
            from,
            { ...from.config, presets },
            `updated preset ${name}`,
          );
        }),
      }),
    ),
  ];
}
