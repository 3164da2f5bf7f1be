// `mcp launches`: the launch references client configurations were given
// (see _launches.ts), listed, or one revoked.

import type { CliBuiltin } from "@rukh/cli";
import { type AdminBody, flag, OK, print, text, UsageError } from "../kit/index.js";
import { listLaunches, revokeLaunch } from "./_launches.js";

/** The `mcp launches` command of `brand`. */
export function launchesBuiltin(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin {
  return {
    path: ["mcp", "launches"],
    // Revoking one is a change; listing them is not.
    changesState: (inputs) => inputs.revoke !== undefined,
    summary:
      "List the launch references client configurations were given (one per client and endpoint), or revoke one",
    inputs: [
      flag("revoke", "Revoke this launch reference: the server it starts no longer starts", {
        maxLength: 64,
      }),
    ],
    run: guarded(async (ctx, state) => {
      const revoke = text(ctx.inputs, "revoke");
      if (revoke !== undefined) {
        const r = revokeLaunch(state, revoke);
        if (r === undefined)
          throw new UsageError(
            `--revoke ${JSON.stringify(revoke)}: no such launch reference here`,
            {
              see: ["mcp", "launches"],
            },
          );
        print(
          ctx,
          `revoked ${r.id} (${r.client}); to configure ${r.client} again: ${brand} mcp install --client ${r.client}`,
          { launch: r },
        );
        return OK;
      }
      const all = listLaunches(state);
      const line = (r: (typeof all)[number]) =>
        `${r.id}  ${r.client}  ${r.endpoint !== undefined ? `endpoint ${r.endpoint}` : `preset ${r.preset}`}  issued ${r.issuedAt} by ${r.issuedBy}${r.revokedAt === undefined ? "" : `  revoked ${r.revokedAt}`}`;
      print(ctx, all.map(line).join("\n") || "no launch references issued", { launches: all });
      return OK;
    }),
  };
}
