// The development loop: `ext link` runs an unsigned package from its source
// directory for this state directory's user, marked `dev` wherever it shows
// and hidden from every MCP endpoint the owner did not name it for; the next
// call after an edit runs the edit. `ext unlink` removes the link.

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { type CliBuiltin, terminalLine } from "@rukh/cli";
import {
  type AdminBody,
  arg,
  candidates,
  current,
  print,
  Refusal,
  reported,
  text,
} from "../kit/index.js";

/** `ext link` and `ext unlink`. */
export function devBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
    {
      path: ["ext", "link"],
      changesState: true,
      summary:
        "Run an unsigned package from its source directory, for you only: edits apply on the next call, agents never see it unless the owner names it",
      inputs: [arg("dir", "The package directory")],
      run: guarded(async (ctx, state) => {
        const dir = resolve(text(ctx.inputs, "dir")!);
        // The link records the directory's real path (a missing one fails in the link itself).
        let real = dir;
        try {
          real = realpathSync(dir);
        } catch {}
        const from = await current(state, brand);
        const p = await state.apply(
          [
            ...(from.base === null ? [{ op: "setConfig" as const, config: from.config }] : []),
            { op: "link" as const, source: dir, allowIn: from.config.defaultPreset },
          ],
          { base: from.base },
        );
        const id = p.revision.extensions.find((e) => e.dev === real)?.id ?? "the package";
        const human = p.published
          ? `linked ${terminalLine(id)} from ${terminalLine(dir)} [dev]; edits apply on the next call; published profile revision ${p.revisionId.slice(0, 12)}`
          : `${terminalLine(id)} is already linked from ${terminalLine(dir)} as it is; nothing published`;
        print(ctx, human, {
          id,
          dir,
          revisionId: p.revisionId,
          published: p.published,
        });
        return 0;
      }),
    },
    {
      path: ["ext", "unlink"],
      changesState: true,
      summary: "Remove a development link (installed packages are removed with ext remove)",
      inputs: [arg("extension", "The extension id", 0, { maxLength: 256 })],
      suggest: (_id, stateDir) => candidates(stateDir, "extensions"),
      run: guarded(async (ctx, state) => {
        const id = text(ctx.inputs, "extension")!;
        const from = await current(state, brand);
        const e = from.revision?.extensions.find((x) => x.id === id);
        if (e !== undefined && e.dev === undefined)
          throw new Refusal(
            `${terminalLine(id)} is an installed package, not a development link; remove it with ${brand} ext remove ${terminalLine(id)}`,
            { see: ["ext", "list"] },
          );
        const p = await state.remove(id, { base: from.base });
        return reported(ctx, p, `unlinked ${terminalLine(id)}`);
      }),
    },
  ];
}
