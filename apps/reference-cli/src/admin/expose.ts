// `expose`: which installed extensions and commands MCP may see. Presets
// still decide who may call them.

import type { CliBuiltin } from "@rukh/cli";
import { candidates, current, publishConfig } from "./_current.js";
import { arg, text } from "./_inputs.js";
import { type AdminBody, Refusal, safe } from "./_kit.js";

const TARGET = arg("target", "An extension id, or <extension id>/<command id>", 0, {
  maxLength: 512,
});

/** The `expose` commands. */
export function exposeBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["expose", "add"],
      summary: "Let MCP see an installed extension or one of its commands",
      inputs: [TARGET],
      suggest: (_id, stateDir) => candidates(stateDir, "commands"),
      run: guarded(async (ctx, home) => {
        const target = text(ctx.inputs, "target")!;
        const from = await current(home, brand);
        const key = target.includes("/") ? "commands" : "extensions";
        const ext = target.split("/")[0]!;
        const installed = from.revision?.extensions.find((e) => e.id === ext);
        if (installed === undefined)
          throw new Refusal(
            `${safe(ext)} is not installed; installed: ${from.revision?.extensions.map((e) => e.id).join(", ") || "none"}`,
          );
        if (key === "commands") {
          const projection = await home.projection(from.base!);
          if (!projection.routes.commands.some((c) => c.identity === target))
            throw new Refusal(`${installed.id} has no enabled command ${safe(target)}`);
        }
        const list = from.config.exposure?.[key] ?? [];
        const exposure = { ...from.config.exposure, [key]: [...new Set([...list, target])] };
        return publishConfig(ctx, home, from, { ...from.config, exposure }, `exposed ${target}`);
      }),
    },
    {
      path: ["expose", "remove"],
      summary: "Hide an extension or command from MCP again",
      inputs: [TARGET],
      suggest: (_id, stateDir) => candidates(stateDir, "commands"),
      run: guarded(async (ctx, home) => {
        const target = text(ctx.inputs, "target")!;
        const from = await current(home, brand);
        const e = from.config.exposure;
        if (!e?.commands?.includes(target) && !e?.extensions?.includes(target))
          throw new Refusal(
            `${safe(target)} is not exposed; exposed: ${[...(e?.extensions ?? []), ...(e?.commands ?? [])].join(", ") || "nothing"}`,
          );
        const exposure = {
          commands: (e?.commands ?? []).filter((c) => c !== target),
          extensions: (e?.extensions ?? []).filter((c) => c !== target),
        };
        return publishConfig(ctx, home, from, { ...from.config, exposure }, `hid ${target}`);
      }),
    },
  ];
}
