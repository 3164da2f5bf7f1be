// One managed call's process, from its launch to its verdict: what it has
// said, why it is ending, and the steps that end it (cancel with escalation,
// the invoke or the hand-over of a held process, the settling once the
// process and its streams are gone). Every step reads and writes the one
// state below instead of a closure's captured variables.

import type { CommandProcess, CompletionMessage, IpcError } from "@rukh/ipc";
import type { JsonObject } from "@rukh/json";
import { CLEANUP_WAIT_MS } from "../contract/index.js";
import type { InvocationDiagnosticsBudget } from "../diagnostics/index.js";
import type { ProcessHooks, Watchdog } from "../process/index.js";
import { escalation, watchCancellation } from "./_budget.js";
import type { AdmittedCall, ExecutionContext } from "./_execution.js";
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
 * How long a process whose channel ended or failed may take to exit on its
 * own before the core kills it: one that exits is judged by how it exited
 * (`crashed`, `no_completion`…), one that runs on is ended with the channel's
 * failure, since nothing more can reach the host from it.
 */
const CHANNEL_END_GRACE_MS = 500;

/** What the process, once launched, is followed with. */
interface Attached {
  readonly proc: CommandProcess;
  readonly watchdog: Watchdog | undefined;
  readonly detach: () => void;
  readonly streamsClosed: Promise<void>;
  readonly resolve: (result: RunResult) => void;
}

/** The state of one managed call's process and the steps that move it. */
export class ManagedProcess {
  /** The call's diagnostics budget; its summary goes into every outcome. */
  readonly diag: InvocationDiagnosticsBudget;
  private cause: Cause | undefined;
  private completion: CompletionMessage | undefined;
  private checked: CheckedResult = { ok: true };
  private exit: ProcessExit | undefined;
  private spawnError: Error | undefined;
  private storeCorrupt: string | undefined;
  /** Why the core ended a process that ran on after its channel ended or failed. */
  private channelLost: IpcError | undefined;
  /** The invoke was sent: the command's program runs (a held process was released). */
  private invoked = false;
  private greeted = false;
  private settling = false;
  private done = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private attached: Attached | undefined;

  constructor(
    private readonly ctx: ExecutionContext,
    private readonly call: AdmittedCall,
  ) {
    this.diag = ctx.diagnostics(call.invocationId, call.admitted.command.identity);
  }

  /** Whether the call is ending: nothing more is reported or asked of it. */
  private get ending(): boolean {
    return this.done || this.cause !== undefined || this.completion !== undefined;
  }

  /** Where the launched process's log, progress and output go. */
  hooks(): ProcessHooks {
    const request = this.call.request;
    return {
      onLog: (entry) => this.diag.log(entry),
      // Only while the call runs: nothing is reported once it is ending.
      onProgress: (p) => {
        if (this.ending) return;
        try {
          request.onProgress?.({
            progress: p.progress,
            ...(p.total !== undefined && { total: p.total }),
            ...(p.message !== undefined && { message: p.message }),
          });
        } catch {}
      },
      output: (stream, chunk) => this.diag.stream(stream, chunk),
    };
  }

  /** Follows the launched process to its verdict: resolves once, after it and its streams are gone. */
  follow(proc: CommandProcess): Promise<RunResult> {
    return new Promise<RunResult>((resolve) => {
      const { ctx, call } = this;
      const child = proc.child;
      this.attached = {
        proc,
        resolve,
        watchdog: ctx.recordProcess(call.invocationId, call.admitted, child.pid, true),
        detach: watchCancellation({
          request: call.request,
          budget: call.budget,
          running: ctx.running,
          onCancel: (c) => this.cancel(c),
          onHardDeadline: () => {
            this.cancel("deadline");
            this.killGroup("SIGKILL");
          },
        }),
        streamsClosed: new Promise<void>((res) => child.once("close", () => res())),
      };
      this.listen(proc);
      // A held process runs its program only once its package passed its check, here at hand-over.
      if (proc.hold === undefined) this.invoke();
      else
        proc.hold.confirmed.then(
          () => this.handOver(),
          // A hold that fails closes the channel: the process is settled as one that never started.
          () => this.killGroup("SIGKILL"),
        );
    });
  }

  /** Records what the channel and the child say, and settles once the child exits (or never ran). */
  private listen(proc: CommandProcess): void {
    const child = proc.child;
    proc.completion.then(
      (c) => {
        // A completion that comes after the soft deadline answers the deadline's cancel (the
        // runtime sends it at the same instant, by its own timer): it is the deadline's outcome,
        // however late this host's timer runs on a loaded machine.
        if (this.cause === undefined && Date.now() >= this.call.budget.softAt)
          this.cancel("deadline");
        if (this.cause !== undefined) return;
        this.completion = c;
        this.checked = checkResult(this.call.admitted, c);
      },
      () => {},
    );
    proc.ready.then(
      () => {
        this.greeted = true;
      },
      () => {},
    );
    void proc.closed.then((error) => {
      if (error !== undefined)
        this.timers.push(setTimeout(() => this.endChannelless(error), CHANNEL_END_GRACE_MS));
    });
    child.once("error", (e) => {
      this.spawnError = e;
    });
    child.once("exit", (code, signal) => {
      this.exit = { code, signal };
      this.startSettle();
    });
    child.once("error", () => {
      if (child.pid === undefined) this.startSettle();
    });
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.attached?.proc.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {}
  }

  /**
   * A channel that closed, broke the protocol or never got its hello, while
   * the command's program runs: nothing more can come over it, so the call
   * ends now instead of at its deadline, its process group killed. (Before
   * the hand-over a held process's hold ends it; a cancel escalates anyway.)
   */
  private endChannelless(error: IpcError): void {
    if (this.settling || this.done || this.cause !== undefined || !this.invoked) return;
    this.channelLost = error;
    this.diag.note({ channel: error.code }, "the channel ended while the process ran on");
    this.killGroup("SIGKILL");
  }

  /** Asks the command to stop, then escalates to SIGTERM and SIGKILL within the budget. */
  private cancel(c: Cause): void {
    if (this.ending) return;
    this.cause = c;
    this.diag.note({ cause: c }, "cancel");
    // Nothing of the command runs yet: there is nothing to ask to stop.
    if (!this.invoked) {
      this.killGroup("SIGKILL");
      return;
    }
    try {
      this.attached?.proc.cancel(wireCause(c));
    } catch {}
    const { termAt, killAt } = escalation(this.call.budget, Date.now());
    this.timers.push(setTimeout(() => this.killGroup("SIGTERM"), termAt - Date.now()));
    this.timers.push(setTimeout(() => this.killGroup("SIGKILL"), killAt - Date.now()));
  }

  /** A confirmed held process: its package is checked once more, then it is released and invoked. */
  private async handOver(): Promise<void> {
    if (this.settling || this.cause !== undefined) return;
    this.storeCorrupt = (await this.ctx.checkStore(this.call.admitted)) ?? undefined;
    if (this.storeCorrupt === undefined) this.invoke();
    else this.killGroup("SIGKILL");
  }

  private invoke(): void {
    if (this.settling || this.cause !== undefined) return;
    const proc = this.attached?.proc;
    if (proc === undefined) return;
    const { invocationId, admitted, budget } = this.call;
    try {
      proc.hold?.release();
      this.invoked = true;
      proc.invoke({
        invocationId,
        command: admitted.command.identity,
        inputs: admitted.validated.values as unknown as JsonObject,
        explicitInputIds: admitted.validated.explicit,
        remainingMs: Math.max(1, budget.softAt - Date.now()),
        features: admitted.command.machine?.requiredFeatures ?? [],
      });
    } catch (e) {
      this.diag.note({ err: String(e) }, "invoke could not be sent");
      this.killGroup("SIGKILL");
    }
  }

  private startSettle(): void {
    if (this.settling) return;
    this.settling = true;
    void this.settle();
  }

  /** Ends what is left of the process group, waits (bounded) for the channel and streams, then decides. */
  private async settle(): Promise<void> {
    const attached = this.attached;
    if (attached === undefined) return;
    const { proc, streamsClosed } = attached;
    // Whatever the command left behind in its group goes now.
    this.killGroup("SIGKILL");
    let cleanedUp = true;
    const bound = new Promise<"timeout">((res) =>
      this.timers.push(setTimeout(() => res("timeout"), CLEANUP_WAIT_MS)),
    );
    const [channelError, finished] = await Promise.all([
      Promise.race([proc.closed, bound]),
      Promise.race([streamsClosed, bound]),
    ]);
    if (channelError === "timeout" || finished === "timeout") {
      cleanedUp = false;
      proc.child.stdout?.destroy();
      proc.child.stderr?.destroy();
    }
    this.done = true;
    attached.watchdog?.release();
    attached.detach();
    for (const t of this.timers) clearTimeout(t);
    attached.resolve(
      decide(this.diag, this.call.admitted.limits, {
        cause: this.cause,
        completion: this.completion,
        checked: this.checked,
        exit: this.exit,
        spawnError: this.spawnError,
        channelError: channelError === "timeout" ? undefined : channelError,
        cleanedUp,
        greeted: this.greeted,
        channelLost: this.channelLost,
        storeCorrupt: this.storeCorrupt,
      }),
    );
  }
}
