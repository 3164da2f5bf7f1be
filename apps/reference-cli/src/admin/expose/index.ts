// `expose`: which installed extensions and commands MCP may see. Presets
// still decide who may call them. Its steps: add and remove, several at
// once in one publication or none. It imports the kit room.

import { type CliBuiltin, terminalLine } from "@rukh/cli";
import {
  type AdminBody,
  args,
  candidates,
  current,
  publishConfig,
  Refusal,
  texts,
} from "../kit/index.js";

const TARGETS = args(
  "targets",
  "Extension ids, or <extension id>/<command id>: all in one publication",
  { position: 0, maxItems: 64, maxLength: 512 },
);

/** The `expose` commands. */
export function exposeBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["expose", "add"],
      changesState: true,
      summary: "Let MCP see installed extensions or some of their commands",
      inputs: [TARGETS],
      suggest: (_id, stateDir) => candidates(stateDir, "commands"),
      run: guarded(async (ctx, state) => {
        const targets = texts(ctx.inputs, "targets");
        const from = await current(state, brand);
        const installed = from.revision?.extensions ?? [];
        const projection = targets.some((t) => t.includes("/"))
          ? await state.projection(from.base!)
          : undefined;
        for (const target of targets) {
          const ext = target.split("/")[0]!;
          const found = installed.find((e) => e.id === ext);
          if (found === undefined)
            throw new Refusal(
              `${terminalLine(ext)} is not installed; installed: ${installed.map((e) => e.id).join(", ") || "none"}`,
              { see: ["ext", "list"] },
            );
          if (
            target.includes("/") &&
            !projection!.routes.commands.some((c) => c.identity === target)
          ) {
            const its = projection!.routes.commands
              .filter((c) => c.extension === found.id)
              .map((c) => c.identity);
            throw new Refusal(
              `${found.id} has no enabled command ${terminalLine(target)}; its enabled commands: ${its.join(", ") || "none"}`,
              { see: ["ext", "list"] },
            );
          }
        }
        const add = (key: "commands" | "extensions") => [
          ...new Set([
            ...(from.config.exposure?.[key] ?? []),
            ...targets.filter((t) => t.includes("/") === (key === "commands")),
          ]),
        ];
        const exposure = {
          ...from.config.exposure,
          commands: add("commands"),
          extensions: add("extensions"),
        };
        return publishConfig(ctx, state, {
          from,
          config: { ...from.config, exposure },
          what: `exposed ${targets.join(", ")}`,
        });
      }),
    },
    {
      path: ["expose", "remove"],
      changesState: true,
      summary: "Hide extensions or commands from MCP again",
      inputs: [TARGETS],
      suggest: (_id, stateDir) => candidates(stateDir, "commands"),
      run: guarded(async (ctx, state) => {
        const targets = texts(ctx.inputs, "targets");
        const from = await current(state, brand);
        const e = from.config.exposure;
        for (const target of targets)
          if (!e?.commands?.includes(target) && !e?.extensions?.includes(target))
            throw new Refusal(
              `${terminalLine(target)} is not exposed; exposed: ${[...(e?.extensions ?? []), ...(e?.commands ?? [])].join(", ") || "nothing"}`,
              { see: ["profile", "show"] },
            );
        const exposure = {
          commands: (e?.commands ?? []).filter((c) => !targets.includes(c)),
          extensions: (e?.extensions ?? []).filter((c) => !targets.includes(c)),
        };
        return publishConfig(ctx, state, {
          from,
          config: { ...from.config, exposure },
          what: `hid ${targets.join(", ")}`,
        });
      }),
    },
  ];
}
