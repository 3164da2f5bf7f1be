// A managed command: one child process over the authenticated channel, from
// the invoke to the verdict.

import type { CompletionMessage } from "@rukh/ipc";
import type { JsonObject } from "@rukh/json";
import type { Planned } from "./_admission.js";
import type { InvocationRequest } from "./_api.js";
import { type Budget, escalation, watchCancellation } from "./_budget.js";
import type { ExecutionContext } from "./_execution.js";
import { inheritableDescriptors } from "./_fds.js";
import { CLEANUP_WAIT_MS } from "./_limits.js";
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
export function runManaged(
  ctx: ExecutionContext,
  invocationId: string,
  admitted: Planned,
  request: InvocationRequest,
  budget: Budget,
): Promise<RunResult> {
  const diag = ctx.diagnostics(invocationId, admitted.command.identity);
  return new Promise<RunResult>((resolve) => {
    let cause: Cause | undefined;
    let completion: CompletionMessage | undefined;
    let checked: CheckedResult = { ok: true };
    let exit: ProcessExit | undefined;
    let spawnError: Error | undefined;
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const proc = ctx.launch(
      {
        program: admitted.plan.program,
        args: admitted.plan.args,
        env: admitted.plan.env ?? ctx.env,
        cwd: request.cwd ?? process.cwd(),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        shadowFds: inheritableDescriptors(),
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
      admitted.plan.tree === "pid-namespace",
    );
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
      try {
        proc.cancel(wireCause(c));
      } catch {}
      const { termAt, killAt } = escalation(budget, Date.now());
      timers.push(setTimeout(() => killGroup("SIGTERM"), termAt - Date.now()));
      timers.push(setTimeout(() => killGroup("SIGKILL"), killAt - Date.now()));
    };
    const detach = watchCancellation(request, budget, ctx.running, onCancel, () => {
      onCancel("deadline");
      killGroup("SIGKILL");
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

    try {
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
  });
}
