// A passthrough program: the terminal's own stdio, no channel.

import { spawn } from "node:child_process";
import { shadowedStdio } from "@rukh/ipc";
import { NO_DIAGNOSTICS } from "../diagnostics/index.js";
import { inheritableDescriptors, leaseUid, STRICT_UID } from "../process/index.js";
import { escalation, watchCancellation } from "./_budget.js";
import type { AdmittedCall, ExecutionContext } from "./_execution.js";
import {
  CANCEL_REASON,
  type Cause,
  limitExceeded,
  type RunResult,
  SIGXFSZ_STATUS,
} from "./_verdict.js";

/**
 * Runs a passthrough program on the terminal: no channel, so SIGTERM is the
 * cancel request and the exit status is the outcome.
 */
export async function runPassthrough(
  ctx: ExecutionContext,
  { invocationId, admitted, request, budget }: AdmittedCall,
): Promise<RunResult> {
  // A root host's strict program runs as a uid of its own, for as long as it lives.
  const lease =
    admitted.plan.transientUid === true ? await leaseUid(admitted.strictUids) : undefined;
  if (lease === null)
    return {
      outcome: "rejected",
      reason: "enforcement_unavailable",
      message: `no uid of the strict range (${admitted.strictUids.count} from ${admitted.strictUids.first}) is free for the command to run as`,
      diagnostics: NO_DIAGNOSTICS,
    };
  const uid = lease === undefined ? undefined : String(lease.uid);
  const args =
    uid === undefined
      ? admitted.plan.args
      : admitted.plan.args.map((a) => a.replaceAll(STRICT_UID, uid));
  return new Promise<RunResult>((resolve) => {
    let cause: Cause | undefined;
    let finished = false;
    const timers: NodeJS.Timeout[] = [];
    const child = spawn(admitted.plan.program, args, {
      cwd: request.cwd ?? process.cwd(),
      env: admitted.plan.env ?? ctx.env,
      stdio: shadowedStdio(["inherit", "inherit", "inherit"], inheritableDescriptors()),
      shell: false,
    });
    const watchdog = ctx.recordProcess(invocationId, admitted, child.pid, false);
    const kill = (signal: NodeJS.Signals) => {
      try {
        child.kill(signal);
      } catch {}
    };
    const onCancel = (c: Cause) => {
      if (finished || cause !== undefined) return;
      cause = c;
      // No channel to ask on: SIGTERM is the request, SIGKILL the end of its grace.
      kill("SIGTERM");
      const { killAt } = escalation(budget, Date.now());
      timers.push(setTimeout(() => kill("SIGKILL"), killAt - Date.now()));
    };
    const detach = watchCancellation({
      request,
      budget,
      running: ctx.running,
      onCancel,
      onHardDeadline: () => {
        onCancel("deadline");
        kill("SIGKILL");
      },
    });
    const end = (r: RunResult) => {
      if (finished) return;
      finished = true;
      // The sandbox died with its first process: nothing runs as the uid any more.
      lease?.release();
      watchdog?.release();
      detach();
      for (const t of timers) clearTimeout(t);
      resolve(r);
    };
    child.once("error", () =>
      end({
        outcome: "execution_failed",
        reason: "spawn_failed",
        message: "the program could not be started",
        diagnostics: NO_DIAGNOSTICS,
      }),
    );
    child.once("exit", (code, signal) => {
      if (cause !== undefined)
        return end({
          outcome: "cancelled",
          reason: CANCEL_REASON[cause],
          diagnostics: NO_DIAGNOSTICS,
        });
      if (code === 0)
        return end({ outcome: "succeeded", reason: "completed", diagnostics: NO_DIAGNOSTICS });
      if (
        signal === "SIGXFSZ" ||
        (admitted.plan.tree === "pid-namespace" && code === SIGXFSZ_STATUS)
      )
        return end(limitExceeded("fileSize", admitted.limits, NO_DIAGNOSTICS));
      if (code !== null)
        return end({
          outcome: "command_failed",
          reason: "exit_status",
          exitCode: code,
          diagnostics: NO_DIAGNOSTICS,
        });
      end({
        outcome: "execution_failed",
        reason: "crashed",
        message: `the program was ended by ${signal}`,
        diagnostics: NO_DIAGNOSTICS,
      });
    });
  });
}
