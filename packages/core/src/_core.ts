import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { mkdir, readFile, realpath } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import {
  type CommandResult,
  type CommandResultIssueCode,
  validateCommandResult,
} from "@rukh/command-result";
import {
  type CommandSpec,
  type ExtensionDescriptor,
  type InputIssueCode,
  parseDescriptor,
  REGISTERED_FEATURES,
  type SuppliedInputs,
  type ValidatedInputs,
  validateInputs,
} from "@rukh/descriptor";
import {
  type CancelCause,
  type CompletionMessage,
  type IpcError,
  shadowedStdio,
  spawnCommandProcess,
} from "@rukh/ipc";
import type { JsonObject, ValidationIssue } from "@rukh/json";
import {
  DESCRIPTOR_PATH,
  holdNamedLock,
  type NamedLock,
  PRESET_RESOURCE_DEFAULTS,
  resolveTool,
  type StateDirectory,
  stateLockName,
  type TaskPreset,
  type ToolProjection,
} from "@rukh/profile";
import { archiveSegment, type JournalRetention, retentionOf } from "./_archive.js";
import { detectConfinement, strictHome } from "./_confinement.js";
import {
  DiagnosticsSink,
  type InvocationDiagnosticsBudget,
  NO_DIAGNOSTICS,
} from "./_diagnostics.js";
import { CoreError } from "./_errors.js";
import { inheritableDescriptors } from "./_fds.js";
import {
  type JournalFinalRecord,
  type JournalRecord,
  JournalWriter,
  journalTuning,
} from "./_journal.js";
import { type LaunchPlan, launchPlan, type ResourceLimits } from "./_launch.js";
import {
  CANCEL_GRACE_MS,
  CLEANUP_WAIT_MS,
  DIAGNOSTICS_MAX_BYTES,
  TERMINATE_GRACE_MS,
} from "./_limits.js";
import type { InvocationDiagnostics, InvocationOutcome, OutcomeReason } from "./_outcome.js";
import { recoverLostHosts } from "./_recovery.js";
import { acquireSlot, slotPrefix } from "./_slots.js";
import { processStartTime } from "./_tree.js";
import { startWatchdog, type Watchdog } from "./_watchdog.js";

/**
 * Who every call of this core runs for. Fixed by the adapter at launch (for a
 * stdio MCP server: for the life of the process) and never taken from tool
 * arguments or client information.
 *
 * @example
 * const binding: HostBinding = { subject: "alice", actor: "claude-desktop", taskAuthorityRef: "local", preset: "default" };
 */
export interface HostBinding {
  readonly subject: string;
  readonly actor: string;
  readonly taskAuthorityRef: string;
  /** Name of the task preset in the owner configuration. */
  readonly preset: string;
}

/**
 * Options of {@link createInvocationCore}.
 *
 * @example
 * const options: InvocationCoreOptions = { state: new StateDirectory(root), binding };
 */
export interface InvocationCoreOptions {
  readonly state: StateDirectory;
  readonly binding: HostBinding;
  /** The complete environment of command processes; default `{ PATH }` of this process. */
  readonly env?: Readonly<Record<string, string>>;
  /** Per-invocation diagnostics cap, at most (and by default) {@link DIAGNOSTICS_MAX_BYTES}. */
  readonly diagnosticsMaxBytes?: number;
  /**
   * Where bubblewrap is; `null` means there is none (strict calls are then
   * rejected). Default: the owner configuration's `sandbox.program`, else the
   * first existing of /usr/bin/bwrap and /bin/bwrap — never a PATH lookup.
   * Whichever it is must pass the ownership check.
   */
  readonly sandboxProgram?: string | null;
}

/**
 * Names the command to run: its canonical identity, or an MCP tool name the
 * core resolves in the pinned revision (exact match only).
 *
 * @example
 * const ref: CommandRef = { identity: "acme.files/count_lines" };
 */
export type CommandRef = { readonly identity: string } | { readonly toolName: string };

/**
 * One call into the core.
 *
 * @example
 * const request: InvocationRequest = { command: { identity: "acme.files/count_lines" },
 *   supplied: { values: new Map([["path", "src"]]) }, surface: "mcp", revisionId, signal };
 */
export interface InvocationRequest {
  readonly command: CommandRef;
  /** Typed values the caller supplied explicitly, decoded by the adapter. */
  readonly supplied: SuppliedInputs;
  readonly surface: "cli" | "mcp";
  /** The revision the adapter resolved the name in; if it is no longer active the call is rejected (`obsolete_revision`). */
  readonly revisionId?: string;
  /** The client's cancellation (reason `client_cancel`). */
  readonly signal?: AbortSignal;
  /** The owner's cancellation (reason `owner_cancel`). */
  readonly ownerSignal?: AbortSignal;
  /** Raw arguments of a passthrough program (CLI only). */
  readonly passthroughArgs?: readonly string[];
  /** Working directory of the command process; default this process's. */
  readonly cwd?: string;
}

/**
 * The invocation core of one host binding.
 *
 * @example
 * const core = await createInvocationCore({ state, binding });
 * const outcome = await core.invoke(request);
 * await core.close();
 */
export interface InvocationCore {
  readonly binding: HostBinding;
  /** Invocation ids this start-up finalized as `execution_failed`/`host_lost`. */
  readonly recovered: readonly string[];
  /**
   * Runs one call to its one outcome; never throws. When the journal cannot
   * record the start (a full disk), the call runs nothing and ends
   * `execution_failed`/`journal_failed`; a final that cannot be recorded is
   * kept and written with the next record that can be.
   */
  invoke(request: InvocationRequest): Promise<InvocationOutcome>;
  /**
   * Journals a call an adapter refused before the core could take it — its
   * arguments did not decode — and returns its `rejected`/`invalid_input`
   * outcome, so every invocation id a caller is given is in the journal.
   */
  rejected(refusal: AdapterRefusal): Promise<InvocationOutcome>;
  /** Rejects new calls (`core_closed`), cancels running ones (`owner_cancel`), waits for them, closes the journal and log. */
  close(): Promise<void>;
}

/**
 * A call an adapter refused on its own: the command it named and why.
 *
 * @example
 * const refusal: AdapterRefusal = { identity: "acme.files/count", surface: "mcp",
 *   message: "the arguments do not match the tool's input schema", issues };
 */
export interface AdapterRefusal {
  readonly identity: string;
  readonly surface: "cli" | "mcp";
  readonly message: string;
  readonly issues: readonly ValidationIssue<InputIssueCode>[];
}

interface Rejection {
  readonly reject: OutcomeReason;
  readonly revisionId?: string;
  /** The command, once the request named one that exists. */
  readonly identity?: string;
  readonly issues?: readonly ValidationIssue<InputIssueCode>[];
  readonly message: string;
}

interface Admitted {
  readonly revisionId: string;
  readonly digest: string;
  readonly packageDir: string;
  readonly command: CommandSpec;
  readonly preset: TaskPreset;
  readonly validated: ValidatedInputs;
  readonly plan: LaunchPlan;
  readonly limits: ResourceLimits;
  /** The shell a watchdog runs on, for a plan without a pid namespace. */
  readonly watchdogShell: string | null;
  readonly resultMaxBytes: number;
}

type RunResult = Omit<InvocationOutcome, "invocationId" | "revisionId">;

const FEATURES: ReadonlySet<string> = new Set(REGISTERED_FEATURES);
const hostsInThisProcess = new Set<string>();
const exposedCache = new WeakMap<ToolProjection, ReadonlySet<string>>();
const routedCache = new WeakMap<ToolProjection, ReadonlySet<string>>();

function exposedTools(p: ToolProjection): ReadonlySet<string> {
  let s = exposedCache.get(p);
  if (s === undefined) {
    s = new Set(p.tools.map((t) => t.identity));
    exposedCache.set(p, s);
  }
  return s;
}

function routedCommands(p: ToolProjection): ReadonlySet<string> {
  let s = routedCache.get(p);
  if (s === undefined) {
    s = new Set(p.routes.commands.map((r) => r.identity));
    routedCache.set(p, s);
  }
  return s;
}

function allowedBy(preset: TaskPreset, identity: string): boolean {
  const ext = identity.slice(0, identity.indexOf("/"));
  return preset.commands.includes(identity) || preset.commands.includes(`${ext}/*`);
}

const SIZE_ISSUES: ReadonlySet<CommandResultIssueCode> = new Set([
  "too_large",
  "too_deep",
  "too_many_nodes",
  "too_slow",
]);

const CANCEL_REASON: Record<CancelCause, OutcomeReason> = {
  client: "client_cancel",
  owner: "owner_cancel",
  deadline: "deadline",
};

function checkBinding(b: HostBinding): HostBinding {
  for (const k of ["subject", "actor", "taskAuthorityRef", "preset"] as const)
    if (typeof b?.[k] !== "string" || b[k].length === 0 || b[k].length > 256)
      throw new CoreError("invalid_options", `binding.${k} must be a string of 1–256 characters`);
  return Object.freeze({
    subject: b.subject,
    actor: b.actor,
    taskAuthorityRef: b.taskAuthorityRef,
    preset: b.preset,
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
  const env = options.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const host = randomUUID();
  // Held for this host's whole life, from before its segment exists: others
  // take it to learn that the host is gone.
  await mkdir(state.root, { recursive: true });
  const canonicalRoot = realpathSync(state.root);
  const liveness = await holdNamedLock(stateLockName("host", canonicalRoot, host));
  if (liveness === null)
    throw new CoreError("state_unavailable", "cannot hold this host's liveness lock");
  let journal = JournalWriter.create(state.root, host);
  let journalPart = 0;
  const sink = new DiagnosticsSink(state.root);
  hostsInThisProcess.add(host);
  // Read only when archiving begins a new archive segment: a call does not pay for it.
  const retention = async (): Promise<JournalRetention> => {
    const active = await state.activeRevisionId().catch(() => null);
    return retentionOf(
      active === null ? undefined : (await state.readRevision(active)).config.journal,
    );
  };

  // Recovery: a start without a final whose host is gone never ran to an outcome we know.
  const recovered = await recoverLostHosts({
    stateRoot: state.root,
    canonicalRoot,
    host,
    skip: hostsInThisProcess,
    logger: sink.logger,
    retention,
  });

  const descriptors = new Map<string, ExtensionDescriptor>();
  const packageDirs = new Map<string, string>();
  const running = new Set<(cause: CancelCause) => void>();
  const pending = new Set<Promise<unknown>>();
  let inFlight = 0;
  let closed = false;

  async function loadPackage(digest: string): Promise<[ExtensionDescriptor, string]> {
    let d = descriptors.get(digest);
    let dir = packageDirs.get(digest);
    if (d === undefined || dir === undefined) {
      dir = await realpath(join(state.root, "store", digest));
      const parsed = parseDescriptor(await readFile(join(dir, DESCRIPTOR_PATH)));
      if (!parsed.ok)
        throw new CoreError(
          "state_unavailable",
          `stored package ${digest} has no valid descriptor`,
        );
      d = parsed.value;
      descriptors.set(digest, d);
      packageDirs.set(digest, dir);
    }
    return [d, dir];
  }

  async function admit(request: InvocationRequest): Promise<Admitted | Rejection> {
    const active = await state.activeRevisionId();
    if (active === null) return { reject: "not_found", message: "nothing is installed" };
    if (request.revisionId !== undefined && request.revisionId !== active)
      return {
        reject: "obsolete_revision",
        message: "the command was resolved in a profile revision that is no longer active",
      };
    const revisionId = active;
    const [revision, projection] = await Promise.all([
      state.readRevision(revisionId),
      state.projection(revisionId),
    ]);
    // Set once the command is found: a rejection journals which command it was.
    let found: string | undefined;
    const no = (reject: OutcomeReason, message: string): Rejection => ({
      reject,
      revisionId,
      message,
      ...(found !== undefined && { identity: found }),
    });
    let identity: string;
    if ("toolName" in request.command) {
      const tool = resolveTool(projection, request.command.toolName);
      if (tool === undefined) return no("not_found", "no such tool");
      identity = tool.identity;
    } else identity = request.command.identity;
    const slash = identity.indexOf("/");
    const extension = revision.extensions.find((e) => e.id === identity.slice(0, slash));
    if (slash < 1 || extension === undefined) return no("not_found", "no such command");
    const [descriptor, packageDir] = await loadPackage(extension.digest);
    const command = descriptor.commands.find((c) => c.identity === identity);
    if (command === undefined) return no("not_found", "no such command");
    found = identity;
    if (!extension.enabled) return no("not_exposed", "the command's extension is disabled");
    const features = command.machine?.requiredFeatures ?? [];
    const featuresOk = features.every((f) => FEATURES.has(f));
    if (request.surface === "mcp") {
      if (command.execute.mapping === "passthrough")
        return no("passthrough_cli_only", "a passthrough program runs on the CLI only");
      if (command.machine?.interaction === "required")
        return no(
          "interaction_required",
          "the command requires interaction, which MCP cannot provide",
        );
      if (!featuresOk)
        return no("feature_unsupported", "the command requires an unsupported feature");
      if (!exposedTools(projection).has(identity))
        return no("not_exposed", "the command is not an exposed tool");
      if (command.machine?.interaction === "optional")
        return no(
          "interaction_unavailable",
          "the command may ask for interaction, which MCP cannot provide",
        );
    } else {
      if (!routedCommands(projection).has(identity))
        return no("not_exposed", "the command is not installed and enabled");
      if (!featuresOk)
        return no("feature_unsupported", "the command requires an unsupported feature");
    }
    const validated = validateInputs(command, request.supplied);
    if (!validated.ok)
      return {
        reject: "invalid_input",
        revisionId,
        identity,
        issues: validated.issues,
        message: "the inputs are invalid",
      };
    const config = revision.config;
    const preset = Object.hasOwn(config.presets, binding.preset)
      ? config.presets[binding.preset]
      : undefined;
    if (preset === undefined) return no("preset_denied", "the host's task preset is not defined");
    if (
      !allowedBy(preset, identity) ||
      !command.requests.actions.every((a) => preset.actions.includes(a)) ||
      !command.requests.resources.every((r) => preset.resources.includes(r))
    )
      return no("preset_denied", "the task preset does not allow this command or what it requests");
    const program = join(packageDir, ...command.execute.program.split("/"));
    const rel = relative(packageDir, program);
    if (rel.startsWith("..") || isAbsolute(rel))
      return no("not_found", "the command's program is outside its package");
    const confinement = await detectConfinement(
      options.sandboxProgram !== undefined ? options.sandboxProgram : config.sandbox?.program,
    );
    if (preset.enforcement === "strict" && confinement.strictUnavailable !== null)
      return no(
        "enforcement_unavailable",
        `the strict enforcement profile is not available here: ${confinement.strictUnavailable}`,
      );
    const limits: ResourceLimits = { ...PRESET_RESOURCE_DEFAULTS, ...preset.limits };
    const plan = launchPlan(
      {
        profile: preset.enforcement,
        runtime: command.execute.runtime,
        program,
        packageDir,
        args: request.passthroughArgs ?? [],
        cwd: request.cwd ?? process.cwd(),
        limits,
        interactive: command.execute.mapping === "passthrough",
      },
      confinement.environment,
      strictHome(confinement.environment),
    );
    if ("unavailable" in plan)
      return no(
        "enforcement_unavailable",
        `the strict enforcement profile is not available here: ${plan.unavailable}`,
      );
    return {
      revisionId,
      digest: extension.digest,
      packageDir,
      command,
      preset,
      validated: validated.value,
      plan,
      limits,
      watchdogShell: plan.tree === "process-group" ? confinement.environment.shell : null,
      resultMaxBytes: config.limits?.maxCommandResultBytes ?? 131_072,
    };
  }

  /**
   * Journals the command process, so that recovery can end it if this host
   * is lost, and gives a command without a pid namespace its watchdog.
   */
  function recordProcess(
    invocationId: string,
    admitted: Admitted,
    pid: number | undefined,
    leadsGroup: boolean,
  ): Watchdog | undefined {
    if (pid === undefined) return undefined;
    const startTime = processStartTime(pid);
    if (startTime === null) return undefined;
    // Without this record recovery cannot end the process; the call still runs.
    appendSoftly({
      type: "process",
      invocationId,
      host,
      pid,
      pgid: leadsGroup ? pid : 0,
      startTime,
    });
    return admitted.watchdogShell === null
      ? undefined
      : startWatchdog(admitted.watchdogShell, pid, startTime, leadsGroup);
  }

  function outcomeOf(
    invocationId: string,
    revisionId: string | undefined,
    r: RunResult,
  ): InvocationOutcome {
    return { invocationId, ...(revisionId !== undefined && { revisionId }), ...r };
  }

  /** Finals the journal could not take yet, oldest first; each later append tries them again. */
  const unwritten: JournalRecord[] = [];

  /** The archiving of full segment parts, in order. */
  let archiving: Promise<unknown> = Promise.resolve();

  /** Start and process records of calls still running: what a new segment part must carry. */
  const inFlightRecords = new Map<string, JournalRecord[]>();

  /** Appends what is still owed, then `record`; throws `journal_failed` and keeps nothing half-written. */
  function append(record: JournalRecord): void {
    while (unwritten.length > 0) {
      journal.append(unwritten[0]!);
      unwritten.shift();
    }
    journal.append(record);
    if (record.type === "final") inFlightRecords.delete(record.invocationId);
    else
      inFlightRecords.set(record.invocationId, [
        ...(inFlightRecords.get(record.invocationId) ?? []),
        record,
      ]);
    if (journal.size > journalTuning.liveSegmentBytes) rollOver();
  }

  /**
   * Starts this host's next segment part, carrying the records of the calls
   * still running (so each part is whole for recovery), and archives the
   * full one: a host that runs for months keeps a bounded live segment.
   */
  function rollOver(): void {
    let next: JournalWriter;
    try {
      next = JournalWriter.create(state.root, host, undefined, journalPart + 1);
      for (const records of inFlightRecords.values()) for (const r of records) next.append(r);
    } catch (e) {
      sink.logger.error({ err: e }, "the journal could not roll over yet");
      return;
    }
    const full = journal;
    journal = next;
    journalPart++;
    full.close();
    // Parts go to the archive in order; close() waits for them.
    archiving = archiving
      .then(() => archiveSegment(state.root, full.file, canonicalRoot, retention))
      .catch((e) =>
        sink.logger.error({ err: e }, "a full journal segment could not be archived yet"),
      );
  }

  function appendSoftly(record: JournalRecord): boolean {
    try {
      append(record);
      return true;
    } catch (e) {
      sink.logger.error({ err: e, record: record.type }, "a journal record could not be written");
      return false;
    }
  }

  async function finalize(
    invocationId: string,
    command: string | undefined,
    outcome: InvocationOutcome,
  ): Promise<InvocationOutcome> {
    const record: JournalFinalRecord = {
      type: "final",
      invocationId,
      at: new Date().toISOString(),
      host,
      outcome: outcome.outcome,
      reason: outcome.reason,
      ...(command !== undefined && { command }),
    };
    // The outcome happened whether or not it is on disk yet: it is returned, and its record owed.
    if (!appendSoftly(record)) unwritten.push(record);
    return outcome;
  }

  function invoke(request: InvocationRequest): Promise<InvocationOutcome> {
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
    const work = invokeOpen(invocationId, request);
    pending.add(work);
    work.finally(() => pending.delete(work)).catch(() => {});
    return work;
  }

  async function invokeOpen(
    invocationId: string,
    request: InvocationRequest,
  ): Promise<InvocationOutcome> {
    const startedAt = Date.now();
    const reject = (
      reason: OutcomeReason,
      message: string,
      revisionId?: string,
      issues?: Rejection["issues"],
      identity?: string,
    ) =>
      finalize(
        invocationId,
        identity,
        outcomeOf(invocationId, revisionId, {
          outcome: "rejected",
          reason,
          message,
          ...(issues !== undefined && { issues }),
          diagnostics: NO_DIAGNOSTICS,
        }),
      );
    let admitted: Admitted | Rejection;
    try {
      admitted = await admit(request);
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
      );
    }
    if ("reject" in admitted)
      return reject(
        admitted.reject,
        admitted.message,
        admitted.revisionId,
        admitted.issues,
        admitted.identity,
      );
    if (closed) return reject("core_closed", "the host is shutting down", admitted.revisionId);
    const isPassthrough = admitted.command.execute.mapping === "passthrough";
    if (isPassthrough && request.surface !== "cli")
      return reject(
        "passthrough_cli_only",
        "a passthrough program runs on the CLI only",
        admitted.revisionId,
      );
    // A call cancelled before it started spawns nothing.
    const early = request.ownerSignal?.aborted
      ? "owner"
      : request.signal?.aborted
        ? "client"
        : undefined;
    if (early !== undefined)
      return finalize(
        invocationId,
        undefined,
        outcomeOf(invocationId, admitted.revisionId, {
          outcome: "cancelled",
          reason: CANCEL_REASON[early],
          message: "the call was cancelled before it started",
          diagnostics: NO_DIAGNOSTICS,
        }),
      );
    // No hidden queue: the check and the increment are one synchronous step.
    if (inFlight >= admitted.preset.maxConcurrency)
      return reject(
        "concurrency_limit",
        `at most ${admitted.preset.maxConcurrency} calls may run at once`,
        admitted.revisionId,
      );
    inFlight++;
    let slot: NamedLock | null = null;
    const identity = admitted.command.identity;
    try {
      // The same limit holds across every process on this state directory.
      slot = await acquireSlot(
        slotPrefix(canonicalRoot, binding.preset),
        admitted.preset.maxConcurrency,
      );
      if (slot === null)
        return await reject(
          "concurrency_limit",
          `at most ${admitted.preset.maxConcurrency} calls of preset "${binding.preset}" may run at once on this state directory`,
          admitted.revisionId,
        );
      const started = appendSoftly({
        type: "start",
        invocationId,
        at: new Date(startedAt).toISOString(),
        host,
        pid: process.pid,
        command: identity,
        revisionId: admitted.revisionId,
        digest: admitted.digest,
        surface: request.surface,
        subject: binding.subject,
        actor: binding.actor,
        taskAuthorityRef: binding.taskAuthorityRef,
        preset: binding.preset,
      });
      // A call whose start is not on disk is never run: a host crash would leave no trace of it.
      if (!started)
        return outcomeOf(invocationId, admitted.revisionId, {
          outcome: "execution_failed",
          reason: "journal_failed",
          message: "the invocation journal cannot be written (is the disk full?); nothing was run",
          diagnostics: NO_DIAGNOSTICS,
        });
      const budget = budgetOf(startedAt, admitted.preset.deadlineMs);
      const result = isPassthrough
        ? await runPassthrough(invocationId, admitted, request, budget)
        : await runManaged(invocationId, admitted, request, budget);
      return await finalize(
        invocationId,
        identity,
        outcomeOf(invocationId, admitted.revisionId, result),
      );
    } finally {
      slot?.release();
      inFlight--;
    }
  }

  /**
   * Wires the three cancellation sources and the hard end of the budget;
   * returns a detach function.
   */
  function cancellation(
    request: InvocationRequest,
    budget: Budget,
    onCancel: (cause: CancelCause) => void,
    onHardDeadline: () => void,
  ): () => void {
    const client = () => onCancel("client");
    const owner = () => onCancel("owner");
    const timer = setTimeout(() => onCancel("deadline"), Math.max(0, budget.softAt - Date.now()));
    const hard = setTimeout(onHardDeadline, Math.max(0, budget.hardAt - Date.now()));
    request.signal?.addEventListener("abort", client, { once: true });
    request.ownerSignal?.addEventListener("abort", owner, { once: true });
    running.add(onCancel);
    if (request.ownerSignal?.aborted) queueMicrotask(owner);
    if (request.signal?.aborted) queueMicrotask(client);
    return () => {
      clearTimeout(timer);
      clearTimeout(hard);
      request.signal?.removeEventListener("abort", client);
      request.ownerSignal?.removeEventListener("abort", owner);
      running.delete(onCancel);
    };
  }

  function runManaged(
    invocationId: string,
    admitted: Admitted,
    request: InvocationRequest,
    budget: Budget,
  ): Promise<RunResult> {
    const diag = sink.invocation(invocationId, admitted.command.identity, diagnosticsMax);
    return new Promise<RunResult>((resolve) => {
      let cause: CancelCause | undefined;
      let completion: CompletionMessage | undefined;
      let checked: { ok: true; result?: CommandResult } | { ok: false; reason: OutcomeReason } = {
        ok: true,
      };
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let spawnError: Error | undefined;
      let done = false;
      const timers: NodeJS.Timeout[] = [];
      const proc = spawnCommandProcess({
        program: admitted.plan.program,
        args: admitted.plan.args,
        env: admitted.plan.env ?? env,
        cwd: request.cwd ?? process.cwd(),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        shadowFds: inheritableDescriptors(),
        onLog: (entry) => diag.log(entry),
      });
      const child = proc.child;
      const watchdog = recordProcess(invocationId, admitted, child.pid, true);
      child.stdout?.on("data", (c: Buffer) => diag.stream("stdout", c));
      child.stderr?.on("data", (c: Buffer) => diag.stream("stderr", c));
      const killGroup = (signal: NodeJS.Signals) => {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, signal);
        } catch {}
      };

      const onCancel = (c: CancelCause) => {
        if (done || cause !== undefined || completion !== undefined) return;
        cause = c;
        diag.note({ cause: c }, "cancel");
        try {
          proc.cancel(c);
        } catch {}
        const { termAt, killAt } = escalation(budget, Date.now());
        timers.push(setTimeout(() => killGroup("SIGTERM"), termAt - Date.now()));
        timers.push(setTimeout(() => killGroup("SIGKILL"), killAt - Date.now()));
      };
      const detach = cancellation(request, budget, onCancel, () => {
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
          decide(
            diag,
            admitted.limits,
            cause,
            completion,
            checked,
            exit,
            spawnError,
            channelError === "timeout" ? undefined : channelError,
            cleanedUp,
            greeted,
          ),
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

  function runPassthrough(
    invocationId: string,
    admitted: Admitted,
    request: InvocationRequest,
    budget: Budget,
  ): Promise<RunResult> {
    return new Promise<RunResult>((resolve) => {
      let cause: CancelCause | undefined;
      let finished = false;
      const timers: NodeJS.Timeout[] = [];
      const child = spawn(admitted.plan.program, admitted.plan.args, {
        cwd: request.cwd ?? process.cwd(),
        env: admitted.plan.env ?? env,
        stdio: shadowedStdio(["inherit", "inherit", "inherit"], inheritableDescriptors()),
        shell: false,
      });
      const watchdog = recordProcess(invocationId, admitted, child.pid, false);
      const kill = (signal: NodeJS.Signals) => {
        try {
          child.kill(signal);
        } catch {}
      };
      const onCancel = (c: CancelCause) => {
        if (finished || cause !== undefined) return;
        cause = c;
        // No channel to ask on: SIGTERM is the request, SIGKILL the end of its grace.
        kill("SIGTERM");
        const { killAt } = escalation(budget, Date.now());
        timers.push(setTimeout(() => kill("SIGKILL"), killAt - Date.now()));
      };
      const detach = cancellation(request, budget, onCancel, () => {
        onCancel("deadline");
        kill("SIGKILL");
      });
      const end = (r: RunResult) => {
        if (finished) return;
        finished = true;
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

  function rejected(refusal: AdapterRefusal): Promise<InvocationOutcome> {
    const invocationId = randomUUID();
    const outcome: InvocationOutcome = {
      invocationId,
      outcome: "rejected",
      reason: "invalid_input",
      message: refusal.message,
      issues: refusal.issues,
      diagnostics: NO_DIAGNOSTICS,
    };
    return closed ? Promise.resolve(outcome) : finalize(invocationId, refusal.identity, outcome);
  }

  return {
    binding,
    recovered,
    invoke,
    rejected,
    async close() {
      if (closed) return;
      closed = true;
      for (const cancel of [...running]) cancel("owner");
      await Promise.allSettled([...pending]);
      while (unwritten.length > 0)
        try {
          journal.append(unwritten[0]!);
          unwritten.shift();
        } catch {
          break;
        }
      journal.close();
      await archiving;
      // A segment with nothing owed is history now; one still owing finals stays
      // live, and the next start finishes it.
      if (unwritten.length === 0)
        await archiveSegment(state.root, journal.file, canonicalRoot, retention).catch((e) =>
          sink.logger.error({ err: e }, "the journal segment could not be archived yet"),
        );
      sink.close();
      hostsInThisProcess.delete(host);
      liveness.release();
    },
  };
}

/**
 * A call's time budget: at `softAt` the deadline cancel is sent, and by
 * `hardAt` (start + the preset's `deadlineMs`) the process group is killed.
 * The gap reserves room for the escalation inside the same budget.
 */
interface Budget {
  readonly softAt: number;
  readonly hardAt: number;
}

function budgetOf(startedAt: number, deadlineMs: number): Budget {
  const reserve = Math.min(CANCEL_GRACE_MS + TERMINATE_GRACE_MS, Math.floor(deadlineMs / 2));
  return { softAt: startedAt + deadlineMs - reserve, hardAt: startedAt + deadlineMs };
}

/** When a cancel accepted at `now` escalates: SIGTERM after the grace, SIGKILL after that, never past `hardAt`. */
function escalation(budget: Budget, now: number): { termAt: number; killAt: number } {
  const termShare = Math.min(TERMINATE_GRACE_MS, Math.floor((budget.hardAt - budget.softAt) / 3));
  const termAt = Math.max(now, Math.min(now + CANCEL_GRACE_MS, budget.hardAt - termShare));
  const killAt = Math.max(termAt, Math.min(termAt + TERMINATE_GRACE_MS, budget.hardAt));
  return { termAt, killAt };
}

function checkResult(
  admitted: Admitted,
  c: CompletionMessage,
): { ok: true; result?: CommandResult } | { ok: false; reason: OutcomeReason } {
  const declaration = admitted.command.execute.result;
  if (c.commandResult === undefined)
    return declaration !== undefined && c.outcome === "succeeded"
      ? { ok: false, reason: "missing_result" }
      : { ok: true };
  const v = validateCommandResult(declaration ?? { kind: "text" }, c.commandResult, {
    limits: { resultMaxBytes: admitted.resultMaxBytes },
  });
  if (v.ok) return { ok: true, result: v.value };
  return {
    ok: false,
    reason: v.issues.some((i) => SIZE_ISSUES.has(i.code)) ? "result_too_large" : "invalid_result",
  };
}

const FAILURE_MESSAGES: Partial<Record<OutcomeReason, string>> = {
  invalid_result: "the command's result does not match its declaration",
  result_too_large: "the command's result exceeds the result limits",
  missing_result: "the command reported success without its declared result",
  exit_nonzero_after_success: "the command reported success but its process did not exit cleanly",
  no_completion: "the command process exited without reporting a completion",
  crashed: "the command process ended without reporting a completion",
  protocol_error: "the command process broke the host protocol",
  spawn_failed: "the command process could not be started",
  cleanup_failed: "the command process could not be cleaned up",
};

function failed(reason: OutcomeReason, diagnostics: InvocationDiagnostics): RunResult {
  return {
    outcome: "execution_failed",
    reason,
    message: FAILURE_MESSAGES[reason] ?? "the command failed to execute",
    diagnostics,
  };
}

const LIMIT_WORDS = { memory: "memory", fileSize: "file size" } as const;
// bubblewrap reports a command killed by signal N as exit status 128 + N.
const SIGXFSZ_STATUS = 128 + 25;

function limitExceeded(
  limit: "memory" | "fileSize",
  limits: ResourceLimits,
  diagnostics: InvocationDiagnostics,
): RunResult {
  const bytes = limit === "memory" ? limits.memoryBytes : limits.fileSizeBytes;
  return {
    outcome: "execution_failed",
    reason: "resource_limit",
    resourceLimit: limit,
    message: `the command exceeded its ${LIMIT_WORDS[limit]} limit (${bytes} bytes)`,
    diagnostics,
  };
}

/** Which limit the kernel's signal or the runtime's own report says the command ran into. */
function exceededLimit(
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  diag: InvocationDiagnosticsBudget,
): "memory" | "fileSize" | undefined {
  if (exit?.signal === "SIGXFSZ" || exit?.code === SIGXFSZ_STATUS) return "fileSize";
  if (diag.allocationFailed) return "memory";
  return undefined;
}

function decide(
  diag: InvocationDiagnosticsBudget,
  limits: ResourceLimits,
  cause: CancelCause | undefined,
  completion: CompletionMessage | undefined,
  checked: { ok: true; result?: CommandResult } | { ok: false; reason: OutcomeReason },
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  spawnError: Error | undefined,
  channelError: IpcError | undefined,
  cleanedUp: boolean,
  greeted: boolean,
): RunResult {
  diag.note(
    {
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      channel: channelError?.code ?? null,
      stdoutBytes: diag.stdoutBytes,
      stderrBytes: diag.stderrBytes,
      droppedBytes: diag.droppedBytes,
    },
    "finished",
  );
  const diagnostics = diag.summary();
  if (cause !== undefined)
    return {
      outcome: "cancelled",
      reason: CANCEL_REASON[cause],
      message: cause === "deadline" ? "the call's deadline passed" : "the call was cancelled",
      diagnostics,
    };
  if (completion === undefined) {
    if (spawnError !== undefined || channelError?.code === "spawn_failed")
      return failed("spawn_failed", diagnostics);
    // Started through the sandbox or prlimit, a program that cannot be
    // executed shows as their exec-failure status, before any hello.
    if (!greeted && (exit?.code === 126 || exit?.code === 127))
      return failed("spawn_failed", diagnostics);
    const limit = exceededLimit(exit, diag);
    if (limit !== undefined) return limitExceeded(limit, limits, diagnostics);
    if (channelError?.protocolViolation) return failed("protocol_error", diagnostics);
    if (exit?.code === 0) return failed("no_completion", diagnostics);
    return failed("crashed", diagnostics);
  }
  if (channelError !== undefined) return failed("protocol_error", diagnostics);
  if (!checked.ok) return failed(checked.reason, diagnostics);
  if (!cleanedUp) return failed("cleanup_failed", diagnostics);
  const extras = {
    ...(checked.result !== undefined && { commandResult: checked.result }),
    ...(completion.effects !== undefined && { effects: completion.effects }),
    ...(completion.message !== undefined && { message: completion.message }),
  };
  if (completion.outcome === "command_failed")
    return { outcome: "command_failed", reason: "command_reported", ...extras, diagnostics };
  if (exit?.code !== 0) return failed("exit_nonzero_after_success", diagnostics);
  return { outcome: "succeeded", reason: "completed", ...extras, diagnostics };
}
