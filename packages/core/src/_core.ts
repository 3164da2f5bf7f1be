// The invocation core: one host binding, its journal and its running calls.
// Admission decides, execution runs, the host journal records; this file is
// the order they happen in.

import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { mkdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";
import {
  checkStoredPackage,
  corruptExtension,
  type NamedLock,
  ProfileError,
  type ProfileRevision,
  stateLocks,
  storedDescriptor,
  type ToolProjection,
} from "@rukh/profile";
import {
  type AdmissionInput,
  admit,
  checkRevision,
  type Planned,
  plan,
  type Rejection,
  targetOf,
} from "./_admission.js";
import {
  checkBinding,
  type HostBinding,
  type InvocationCore,
  type InvocationCoreOptions,
  type InvocationRequest,
} from "./_api.js";
import { ownerRetention } from "./_archive.js";
import { budgetOf } from "./_budget.js";
import { detectConfinement } from "./_confinement.js";
import { DiagnosticsSink, NO_DIAGNOSTICS } from "./_diagnostics.js";
import { CoreError } from "./_errors.js";
import type { ExecutionContext } from "./_execution.js";
import { HostJournal } from "./_host-journal.js";
import { inputsFields } from "./_journal.js";
import {
  DIAGNOSTICS_MAX_BYTES,
  READY_PROCESS_IDLE_MS,
  READY_PROCESSES_PER_LAUNCH,
} from "./_limits.js";
import type { InvocationOutcome, OutcomeReason } from "./_outcome.js";
import { launchNow, ReadyProcesses } from "./_ready.js";
import { recoverLostHosts } from "./_recovery.js";
import { runManaged } from "./_run-managed.js";
import { runPassthrough } from "./_run-passthrough.js";
import { acquireSlot } from "./_slots.js";
import { processStartTime } from "./_tree.js";
import { CANCEL_REASON, type Cause, type RunResult } from "./_verdict.js";
import { startWatchdog } from "./_watchdog.js";

const hostsInThisProcess = new Set<string>();

function outcomeOf(
  invocationId: string,
  revisionId: string | undefined,
  r: RunResult,
): InvocationOutcome {
  return { invocationId, ...(revisionId !== undefined && { revisionId }), ...r };
}

function rejection(invocationId: string, r: Rejection): InvocationOutcome {
  return outcomeOf(invocationId, r.revisionId, {
    // A package that fails its check is a failure of the installation, not a refusal of the call.
    outcome: r.reject === "store_corrupt" ? "execution_failed" : "rejected",
    reason: r.reject,
    message: r.message,
    ...(r.issues !== undefined && { issues: r.issues }),
    diagnostics: NO_DIAGNOSTICS,
  });
}

/**
 * Creates the invocation core for one host binding over a state directory.
 * On start-up it reads the journal and finalizes every invocation that has a
 * start record but no final one, and whose host process is gone, as
 * `execution_failed`/`host_lost` (the command is never run again).
 *
 * @example
 * const core = await createInvocationCore({
 *   state: new StateDirectory(resolveStateDir({ brand: "acme" })),
 *   binding: { subject: "alice", actor: "cli", taskAuthorityRef: "local", preset: "default" },
 * });
 * const outcome = await core.invoke({ command: { identity: "acme.files/count_lines" },
 *   supplied: { values: new Map([["path", "src"]]) }, surface: "cli" });
 * if (outcome.outcome === "succeeded") console.log(outcome.commandResult);
 * await core.close();
 */
export async function createInvocationCore(
  options: InvocationCoreOptions,
): Promise<InvocationCore> {
  const binding = checkBinding(options.binding);
  const state = options.state;
  const diagnosticsMax = Math.min(
    options.diagnosticsMaxBytes ?? DIAGNOSTICS_MAX_BYTES,
    DIAGNOSTICS_MAX_BYTES,
  );
  const host = randomUUID();
  // Held for this host's whole life, from before its segment exists: others
  // take it to learn that the host is gone.
  await mkdir(state.root, { recursive: true });
  const locks = stateLocks(realpathSync(state.root), state.locks);
  const liveness = await locks.hold("host", host);
  if (liveness === null)
    throw new CoreError("state_unavailable", "cannot hold this host's liveness lock");
  const sink = new DiagnosticsSink(state.root);
  // Read only when archiving begins a new archive segment: a call does not pay for it.
  const retention = ownerRetention(state);
  const journal = new HostJournal({
    stateRoot: state.root,
    locks,
    host,
    logger: sink.logger,
    retention,
  });
  hostsInThisProcess.add(host);

  // Recovery: a start without a final whose host is gone never ran to an outcome we know.
  const recovered = await recoverLostHosts({
    stateRoot: state.root,
    locks,
    host,
    skip: hostsInThisProcess,
    logger: sink.logger,
    retention,
  });

  const packages = new Map<string, [ExtensionDescriptor, string]>();
  const running = new Set<(cause: Cause) => void>();
  const ready =
    (options.readyProcesses ?? 0) > 0
      ? new ReadyProcesses(
          {
            max: options.readyProcesses!,
            perLaunch: READY_PROCESSES_PER_LAUNCH,
            idleMs: READY_PROCESS_IDLE_MS,
          },
          () => state.activeRevisionId(),
        )
      : undefined;
  const pending = new Set<Promise<unknown>>();
  // Calls running per preset (a remote host serves many bindings from one core).
  const inFlightOf = new Map<string, number>();
  let closed = false;

  async function loadPackage(digest: string): Promise<[ExtensionDescriptor, string]> {
    let loaded = packages.get(digest);
    if (loaded === undefined) {
      const dir = await realpath(join(state.root, "store", digest));
      let descriptor: ExtensionDescriptor;
      try {
        descriptor = await storedDescriptor(state.root, digest);
      } catch (e) {
        throw new CoreError("state_unavailable", (e as Error).message);
      }
      loaded = [descriptor, dir];
      packages.set(digest, loaded);
    }
    return loaded;
  }

  /** A stored package that fails its check ends the call before anything runs; other errors propagate. */
  function storeCorrupt(e: unknown, revisionId: string, identity?: string): Rejection {
    if (!(e instanceof ProfileError) || e.code !== "store_corrupt") throw e;
    sink.logger.error({ err: e, command: identity }, "a stored package failed its check");
    return {
      reject: "store_corrupt",
      revisionId,
      ...(identity !== undefined && { identity }),
      message: `an installed package has been modified since it was installed; nothing was run (${e.message})`,
    };
  }

  /** Reads what admission decides from, lets it decide, then plans the launch. */
  async function admitted(
    request: InvocationRequest,
    binding: HostBinding,
  ): Promise<Planned | Rejection> {
    const activeRevisionId = await state.activeRevisionId();
    const stale = checkRevision(request, activeRevisionId);
    if (stale !== null) return stale;
    const id = activeRevisionId as string;
    // Only MCP needs the projection (tool names, exposure); a CLI call reads
    // its revision and verifies just its own package.
    const needsProjection = request.surface === "mcp" || "toolName" in request.command;
    let revision: ProfileRevision;
    let projection: ToolProjection | undefined;
    try {
      [revision, projection] = await Promise.all([
        state.readRevision(id),
        needsProjection ? state.projection(id) : undefined,
      ]);
    } catch (e) {
      return storeCorrupt(e, id);
    }
    const input: AdmissionInput = {
      request,
      binding,
      activeRevisionId,
      revision,
      projection,
      devAllowed: options.devExtensions ?? [],
    };
    const target = targetOf(input);
    if ("reject" in target) return target;
    // The package must still be what was signed, every time it is used.
    try {
      await checkStoredPackage(state.root, target.extension.digest);
    } catch (e) {
      return storeCorrupt(
        e instanceof ProfileError && e.code === "store_corrupt"
          ? corruptExtension(target.extension, e)
          : e,
        id,
        target.identity,
      );
    }
    const [descriptor, packageDir] = await loadPackage(target.extension.digest);
    const decision = admit(input, target, descriptor, packageDir);
    if ("reject" in decision) return decision;
    // The probe's answers are kept in the state directory between processes.
    const confinement = await detectConfinement(
      options.sandboxProgram !== undefined
        ? options.sandboxProgram
        : revision.config.sandbox?.program,
      { stateDir: state.root },
    );
    return plan(decision, request, confinement, process.cwd());
  }

  const execution: ExecutionContext = {
    env: options.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    running,
    diagnostics: (invocationId, identity) =>
      sink.invocation(invocationId, identity, diagnosticsMax),
    launch: (request, hooks) =>
      ready !== undefined && !closed ? ready.launch(request, hooks) : launchNow(request, hooks),
    async checkStore(planned) {
      try {
        await checkStoredPackage(state.root, planned.digest);
        return null;
      } catch (e) {
        try {
          return storeCorrupt(e, planned.revisionId, planned.command.identity).message;
        } catch {
          return `the installed package cannot be checked (${(e as Error).message}); nothing was run`;
        }
      }
    },
    recordProcess(invocationId, planned, pid, leadsGroup) {
      if (pid === undefined) return undefined;
      const startTime = processStartTime(pid);
      if (startTime === null) return undefined;
      // Without this record recovery cannot end the process; the call still runs.
      journal.appendSoftly({
        type: "process",
        invocationId,
        host,
        pid,
        pgid: leadsGroup ? pid : 0,
        startTime,
      });
      return planned.watchdogShell === null
        ? undefined
        : (startWatchdog({ shell: planned.watchdogShell, pid, startTime, leadsGroup }) ??
            undefined);
    },
  };

  /** Records the final; `by` for a call that has no start record to name who made it. */
  function finalize(
    invocationId: string,
    command: string | undefined,
    outcome: InvocationOutcome,
    by?: HostBinding,
  ): InvocationOutcome {
    journal.final(invocationId, command, outcome, by);
    // The author's view of a result that missed its declaration; the journal keeps pointers only.
    if (outcome.resultIssues !== undefined)
      sink.logger.warn(
        { invocationId, command, reason: outcome.reason, issues: outcome.resultIssues },
        "the command's result does not match its declaration",
      );
    return outcome;
  }

  function invoke(binding: HostBinding, request: InvocationRequest): Promise<InvocationOutcome> {
    const invocationId = randomUUID();
    // After close the journal is gone: the refusal is returned, not recorded.
    if (closed)
      return Promise.resolve({
        invocationId,
        outcome: "rejected",
        reason: "core_closed",
        message: "the host is shutting down",
        diagnostics: NO_DIAGNOSTICS,
      });
    const work = invokeOpen(invocationId, binding, request);
    pending.add(work);
    work.finally(() => pending.delete(work)).catch(() => {});
    return work;
  }

  async function invokeOpen(
    invocationId: string,
    binding: HostBinding,
    request: InvocationRequest,
  ): Promise<InvocationOutcome> {
    const startedAt = Date.now();
    const reject = (r: Rejection) =>
      finalize(invocationId, r.identity, rejection(invocationId, r), binding);
    let planned: Planned | Rejection;
    try {
      planned = await admitted(request, binding);
    } catch (e) {
      sink.logger.error(
        { invocationId, err: e },
        "cannot resolve the command in the state directory",
      );
      return finalize(
        invocationId,
        undefined,
        outcomeOf(invocationId, undefined, {
          outcome: "execution_failed",
          reason: "state_unavailable",
          message: "the installed command could not be loaded",
          diagnostics: NO_DIAGNOSTICS,
        }),
        binding,
      );
    }
    if ("reject" in planned) return reject(planned);
    const { revisionId, preset } = planned;
    const identity = planned.command.identity;
    const no = (reason: OutcomeReason, message: string) =>
      reject({ reject: reason, message, revisionId, identity });
    if (closed) return no("core_closed", "the host is shutting down");
    // A call cancelled before it started spawns nothing.
    const early: Cause | undefined = request.ownerSignal?.aborted
      ? "owner"
      : request.transportSignal?.aborted
        ? "transport"
        : request.signal?.aborted
          ? "client"
          : undefined;
    if (early !== undefined)
      return finalize(
        invocationId,
        undefined,
        outcomeOf(invocationId, revisionId, {
          outcome: "cancelled",
          reason: CANCEL_REASON[early],
          message: "the call was cancelled before it started",
          diagnostics: NO_DIAGNOSTICS,
        }),
        binding,
      );
    // No hidden queue: the check and the increment are one synchronous step.
    const inFlight = inFlightOf.get(binding.preset) ?? 0;
    if (inFlight >= preset.maxConcurrency)
      return no("concurrency_limit", `at most ${preset.maxConcurrency} calls may run at once`);
    inFlightOf.set(binding.preset, inFlight + 1);
    let slot: NamedLock | null = null;
    try {
      // The same limit holds across every process on this state directory.
      slot = await acquireSlot(locks, binding.preset, preset.maxConcurrency);
      if (slot === null)
        return no(
          "concurrency_limit",
          `at most ${preset.maxConcurrency} calls of preset "${binding.preset}" may run at once on this state directory`,
        );
      const started = journal.appendSoftly({
        type: "start",
        invocationId,
        at: new Date(startedAt).toISOString(),
        host,
        pid: process.pid,
        command: identity,
        revisionId,
        digest: planned.digest,
        surface: request.surface,
        subject: binding.subject,
        actor: binding.actor,
        taskAuthorityRef: binding.taskAuthorityRef,
        preset: binding.preset,
        ...inputsFields(planned.validated.values as JsonObject, planned.recordInputs),
        ...(planned.dev && { dev: true as const }),
      });
      // A call whose start is not on disk is never run: a host crash would leave no trace of it.
      if (!started)
        return outcomeOf(invocationId, revisionId, {
          outcome: "execution_failed",
          reason: "journal_failed",
          message: "the invocation journal cannot be written (is the disk full?); nothing was run",
          diagnostics: NO_DIAGNOSTICS,
        });
      const budget = budgetOf(startedAt, deadlineOf(preset.deadlineMs, request.deadlineMs));
      const run = planned.command.execute.mapping === "passthrough" ? runPassthrough : runManaged;
      const result = await run(execution, { invocationId, admitted: planned, request, budget });
      return finalize(invocationId, identity, outcomeOf(invocationId, revisionId, result));
    } finally {
      slot?.release();
      const left = inFlightOf.get(binding.preset)! - 1;
      if (left === 0) inFlightOf.delete(binding.preset);
      else inFlightOf.set(binding.preset, left);
    }
  }

  return {
    binding,
    recovered,
    invoke: (request) => invoke(binding, request),
    bound(other) {
      const checked = checkBinding(other);
      return {
        binding: checked,
        invoke: (request) => invoke(checked, request),
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      ready?.close();
      for (const cancel of [...running]) cancel("owner");
      await Promise.allSettled([...pending]);
      await journal.close();
      sink.close();
      hostsInThisProcess.delete(host);
      liveness.release();
    },
  };
}

/** The shorter of the preset's deadline and the caller's, when the caller's is a positive integer. */
function deadlineOf(preset: number, caller: number | undefined): number {
  return caller !== undefined && Number.isSafeInteger(caller) && caller > 0
    ? Math.min(preset, caller)
    : preset;
}
