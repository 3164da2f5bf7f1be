// A managed command: one child process over the authenticated channel, from
// the invoke to the verdict. This file is the order of the steps; the
// process's state and the steps that move it are _managed-process.ts.

import type { Launch, ProcessRequest } from "../process/index.js";
import type { AdmittedCall, ExecutionContext } from "./_execution.js";
import { ManagedProcess } from "./_managed-process.js";
import type { RunResult } from "./_verdict.js";

/**
 * Runs a managed command over the authenticated channel: sends the invoke,
 * relays cancellation with its escalation, checks the result and decides the
 * one outcome once the process and its streams are gone.
 */
export async function runManaged(ctx: ExecutionContext, call: AdmittedCall): Promise<RunResult> {
  const managed = new ManagedProcess(ctx, call);
  const launched = await ctx.launch(processRequestOf(ctx, call), managed.hooks());
  // No uid of the strict range was free: nothing was started.
  if (typeof launched === "string")
    return {
      outcome: "rejected",
      reason: "enforcement_unavailable",
      message: launched,
      diagnostics: managed.diag.summary(),
    };
  return managed.follow(launched);
}

/** The process a managed call asks for: its plan's launch, held when the plan has one. */
function processRequestOf(
  ctx: ExecutionContext,
  { admitted, request, settled }: AdmittedCall,
): ProcessRequest {
  const launch: Launch = {
    program: admitted.plan.program,
    args: admitted.plan.args,
    env: admitted.plan.env ?? ctx.env,
    cwd: request.cwd ?? process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  };
  const held = admitted.heldPlan;
  return {
    launch,
    held:
      held === null
        ? null
        : { ...launch, program: held.program, args: held.args, env: held.env ?? ctx.env },
    keep: admitted.plan.tree === "pid-namespace",
    uids: admitted.plan.transientUid === true ? admitted.strictUids : null,
    caller: JSON.stringify(admitted.binding),
    revisionId: admitted.revisionId,
    settled,
  };
}
