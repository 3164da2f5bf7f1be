// A managed command: one child process over the authenticated channel, from
// the invoke to the verdict.

import type { CompletionMessage } from "@rukh/ipc";
import type { JsonObject } from "@rukh/json";
import { escalation, watchCancellation } from "./_budget.js";
import type { AdmittedCall, ExecutionContext } from "./_execution.js";
import { inheritableDescriptors } from "./_fds.js";
import { CLEANUP_WAIT_MS } from "./_limits.js";
import type { Launch } from "./_ready.js";
import {
  type Cause,
  type CheckedResult,
  checkResult,
  decide,
  type ProcessExit,
  type RunResult,
  wireCause,
} from "./_verdict.js";

/**
 * Runs a managed command over the authenticated channel: sends the invoke,
 * relays cancellation with its escalation, checks the result and decides the
 * one outcome once the process and its streams are gone.
 */
export async function runManaged(
  ctx: ExecutionContext,
  { invocationId, admitted, request, budget }: AdmittedCall,
): Promise<RunResult> {
  const diag = ctx.diagnostics(invocationId, admitted.command.identity);
  let cause: Cause | undefined;
  let completion: CompletionMessage | undefined;
  let checked: CheckedResult = { ok: true };
  let exit: ProcessExit | undefined;
  let spawnError: Error | undefined;
  let storeCorrupt: string | undefined;
  /** The invoke was sent: the command's program runs (a held process was released). */
  let invoked = false;
  let done = false;
  const timers: NodeJS.Timeout[] = [];
  const launch: Launch = {
    program: admitted.plan.program,
    args: admitted.plan.args,
    env: admitted.plan.env ?? ctx.env,
    cwd: request.cwd ?? process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    shadowFds: inheritableDescriptors(),
  };
  const held = admitted.heldPlan;
  const launched = await ctx.launch(
    {
      launch,
      held:
        held === null
          ? null
          : { ...launch, program: held.program, args: held.args, env: held.env ?? ctx.env },
      keep: admitted.plan.tree === "pid-namespace",
      uids: admitted.plan.transientUid === true ? admitted.strictUids : null,
      caller: JSON.stringify(admitted.binding),
      revisionId: admitted.revisionId,
    },
    {
      onLog: (entry) => diag.log(entry),
      // Only while the call runs: nothing is reported once it is ending.
      onProgress: (p) => {
        if (done || cause !== undefined || completion !== undefined) return;
        try {
          request.onProgress?.({
            progress: p.progress,
            ...(p.total !== undefined && { total: p.total }),
            ...(p.message !== undefined && { message: p.message }),
          });
        } catch {}
      },
      output: (stream, chunk) => diag.stream(stream, chunk),
    },
  );
  // No uid of the strict range was free: nothing was started.
  if (typeof launched === "string")
    return {
      outcome: "rejected",
      reason: "enforcement_unavailable",
      message: launched,
      diagnostics: diag.summary(),
    };
  const proc = launched;
  return new Promise<RunResult>((resolve) => {
    const child = proc.child;
    const watchdog = ctx.recordProcess(invocationId, admitted, child.pid, true);
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {}
    };

    const onCancel = (c: Cause) => {
      if (done || cause !== undefined || completion !== undefined) return;
      cause = c;
      diag.note({ cause: c }, "cancel");
      // Nothing of the command runs yet: there is nothing to ask to stop.
      if (!invoked) return killGroup("SIGKILL");
      try {
        proc.cancel(wireCause(c));
      } catch {}
      const { termAt, killAt } = escalation(budget, Date.now());
      timers.push(setTimeout(() => killGroup("SIGTERM"), termAt - Date.now()));
      timers.push(setTimeout(() => killGroup("SIGKILL"), killAt - Date.now()));
    };
    const detach = watchCancellation({
      request,
      budget,
      running: ctx.running,
      onCancel,
      onHardDeadline: () => {
        onCancel("deadline");
        killGroup("SIGKILL");
      },
    });

    proc.completion.then(
      (c) => {
        if (cause !== undefined) return;
        completion = c;
        checked = checkResult(admitted, c);
      },
      () => {},
    );

    let greeted = false;
    proc.ready.then(
      () => {
        greeted = true;
      },
      () => {},
    );
    const streamsClosed = new Promise<void>((res) => child.once("close", () => res()));
    child.once("error", (e) => {
      spawnError = e;
    });
    const settle = async () => {
      // Whatever the command left behind in its group goes now.
      killGroup("SIGKILL");
      let cleanedUp = true;
      const bound = new Promise<"timeout">((res) =>
        timers.push(setTimeout(() => res("timeout"), CLEANUP_WAIT_MS)),
      );
      const [channelError, finished] = await Promise.all([
        Promise.race([proc.closed, bound]),
        Promise.race([streamsClosed, bound]),
      ]);
      if (channelError === "timeout" || finished === "timeout") {
        cleanedUp = false;
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
      done = true;
      watchdog?.release();
      detach();
      for (const t of timers) clearTimeout(t);
      resolve(
        decide(diag, admitted.limits, {
          cause,
          completion,
          checked,
          exit,
          spawnError,
          channelError: channelError === "timeout" ? undefined : channelError,
          cleanedUp,
          greeted,
          storeCorrupt,
        }),
      );
    };
    let settling = false;
    const startSettle = () => {
      if (settling) return;
      settling = true;
      void settle();
    };
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      startSettle();
    });
    child.once("error", () => {
      if (child.pid === undefined) startSettle();
    });

    const invoke = () => {
      if (settling || cause !== undefined) return;
      try {
        proc.hold?.release();
        invoked = true;
        proc.invoke({
          invocationId,
          command: admitted.command.identity,
          inputs: admitted.validated.values as unknown as JsonObject,
          explicitInputIds: admitted.validated.explicit,
          remainingMs: Math.max(1, budget.softAt - Date.now()),
          features: admitted.command.machine?.requiredFeatures ?? [],
        });
      } catch (e) {
        diag.note({ err: String(e) }, "invoke could not be sent");
        killGroup("SIGKILL");
      }
    };
    // A held process runs its program only once its package passed its check, here at hand-over.
    if (proc.hold === undefined) invoke();
    else
      proc.hold.confirmed.then(
        async () => {
          if (settling || cause !== undefined) return;
          storeCorrupt = (await ctx.checkStore(admitted)) ?? undefined;
          if (storeCorrupt === undefined) invoke();
          else killGroup("SIGKILL");
        },
        // A hold that fails closes the channel: the process is settled as one that never started.
        () => killGroup("SIGKILL"),
      );
  });
}
