// The contract between adapters and the invocation core: what a host is bound
// to, what one call asks for, and what the core promises back.

import type { SuppliedInputs } from "@rukh/descriptor";
import type { JsonObject, JsonValue } from "@rukh/json";
import type { StateDirectory } from "@rukh/profile";
import { CoreError } from "./_errors.js";
import type { InvocationOutcome, OutcomeKind, OutcomeReason } from "./_outcome.js";

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
  /**
   * Development links (`ext link`) this host's MCP calls may run: an MCP
   * endpoint's `devExtensions`. Any other development link is `not_exposed`
   * to an MCP call, whatever the preset allows. Default none.
   */
  readonly devExtensions?: readonly string[];
  /**
   * How many command processes this host keeps started ahead of a call
   * (default 0, none). A managed command's launch seen twice gets its next
   * process started at once, to wait for the next call of exactly that launch:
   * for a host that serves the same commands again and again (MCP), not a
   * CLI call. Each process still runs one invocation; one unused for
   * {@link READY_PROCESS_IDLE_MS} ends, and `close()` ends them all.
   */
  readonly readyProcesses?: number;
  /**
   * Whether this host, for as long as it lives, finishes what hosts lost on
   * its state directory left: every {@link LOST_HOST_SWEEP_MS} it does what
   * a start does (kills what a dead host left running and finalizes its open
   * calls `execution_failed`/`host_lost`), so that a lost call gets its final
   * within seconds rather than at the next start. For a host that serves
   * for long (MCP); default false: a one-shot call (the CLI) recovers at its
   * start and ends before a sweep would find more. The sweep stops at
   * `close()` before the journal closes, and never keeps the process alive.
   */
  readonly sweepLostHosts?: boolean;
}

/**
 * One progress report of a running command: how far (`progress`, of
 * `total` when known) and an optional line of its own words (at most 4 KiB).
 *
 * @example
 * const p: InvocationProgress = { progress: 3, total: 10, message: "indexing" };
 */
export interface InvocationProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
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
  /**
   * What the caller supplied: typed values an adapter decoded (the CLI's
   * lexer), or JSON arguments (MCP's) the core decodes against the command
   * it resolved, so that a name is resolved once.
   */
  readonly supplied: SuppliedInputs | JsonArguments;
  readonly surface: "cli" | "mcp";
  /** The revision the adapter resolved the name in; if it is no longer active the call is rejected (`obsolete_revision`). */
  readonly revisionId?: string;
  /** The client's cancellation (reason `client_cancel`). */
  readonly signal?: AbortSignal;
  /** The owner's cancellation (reason `owner_cancel`). */
  readonly ownerSignal?: AbortSignal;
  /**
   * The loss of the client's transport (reason `transport_lost`): nobody is
   * left to receive the result. The command is cancelled as by the owner.
   */
  readonly transportSignal?: AbortSignal;
  /**
   * The caller's own deadline in ms (an MCP endpoint's `deadlineMs`): the
   * call gets the shorter of it and the preset's. Ignored unless a positive integer.
   */
  readonly deadlineMs?: number;
  /**
   * Called for each progress report of a managed command, in order, while
   * the call runs (never after it ended). Reports never extend the deadline;
   * an error thrown here is ignored.
   */
  readonly onProgress?: (progress: InvocationProgress) => void;
  /**
   * Called once, synchronously, as soon as the call's start record is on
   * disk and before its command starts, with its invocation id: what a task
   * answers its client with must wait for this. Not called for a call
   * refused before it started. An error thrown here is ignored.
   */
  readonly onStart?: (invocationId: string) => void;
  /** Raw arguments of a passthrough program (CLI only). */
  readonly passthroughArgs?: readonly string[];
  /** Working directory of the command process; default this process's. */
  readonly cwd?: string;
}

/**
 * A call's inputs as JSON (an MCP tool call's `arguments`): an object of
 * input ids, decoded with the command's exact rules; `undefined` for none.
 *
 * @example
 * const supplied: JsonArguments = { json: { path: "src", depth: 2 } };
 */
export interface JsonArguments {
  readonly json: JsonValue | undefined;
}

/**
 * One call of a brand's built-in command that changes the owner's state
 * (`ext install`, `trust add`, `preset allow`…): the same admission rules and
 * journal as a command's, its work done in this process.
 *
 * @example
 * const request: BuiltinRequest = { identity: "builtin:preset allow", inputs: { preset: "agent" },
 *   surface: "cli", release: "acme@1.2.0", run: async () => ({ outcome: "succeeded", reason: "completed" }) };
 */
export interface BuiltinRequest {
  /** `builtin:` and the command's path, its words joined by one space (`builtin:preset allow`). */
  readonly identity: string;
  /** Its checked inputs: journaled as their digest only, whatever `journal.recordInputs` says (they may name credentials). */
  readonly inputs: JsonObject;
  readonly surface: "cli" | "mcp";
  /** What implements it, kept as its start record's `digest`: the brand and its version (`acme@1.2.0`). */
  readonly release: string;
  /** The owner's cancellation: a call cancelled before it started does nothing. */
  readonly ownerSignal?: AbortSignal;
  /**
   * Does the built-in's work, called once and only after its start record is
   * on disk, and says how it ended; a throw is `execution_failed`/`crashed`.
   */
  run(): Promise<BuiltinEnd>;
}

/**
 * How a built-in command ended, as its caller judged it.
 *
 * @example
 * const end: BuiltinEnd = { outcome: "succeeded", reason: "completed", published: revisionId };
 */
export interface BuiltinEnd {
  readonly outcome: OutcomeKind;
  readonly reason: OutcomeReason;
  /** The profile revision it published, when it published one: what it changed. */
  readonly published?: string;
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
   * Runs one built-in command to its one journaled outcome; never throws.
   * Admitted only from the CLI (`surface: "cli"`) and under the owner's own
   * authority (`taskAuthorityRef: "local"`): any other binding is rejected
   * (`not_exposed`, `preset_denied`) and recorded, the work never done. A
   * start the journal cannot take (a full disk) does nothing and ends
   * `execution_failed`/`journal_failed`; a host lost while it runs leaves
   * it `execution_failed`/`host_lost`, as a command's.
   */
  invokeBuiltin(request: BuiltinRequest): Promise<InvocationOutcome>;
  /**
   * The same core serving calls for another binding: one journal, one
   * liveness lock, per-preset concurrency shared with every other binding.
   * A remote host binds each request to the subject, actor, token and preset
   * its credential proves; a local host never needs it.
   */
  bound(binding: HostBinding): BoundInvocationCore;
  /** Rejects new calls (`core_closed`), cancels running ones (`owner_cancel`), waits for them, closes the journal and log. */
  close(): Promise<void>;
}

/** What a host without a binding of its own opens: everything of {@link InvocationCoreOptions} but the binding. */
export type InvocationHostOptions = Omit<InvocationCoreOptions, "binding">;

/**
 * An invocation core with no binding of its own: every call runs under the
 * binding a caller proves (`bound`), as a remote host binds each request to
 * the credential it carries. It has nothing to run a call under by itself.
 *
 * @example
 * const host = await openInvocationHost({ state });
 * const outcome = await host.bound(requestBinding).invoke(request);
 * await host.close();
 */
export type InvocationHost = Pick<InvocationCore, "recovered" | "bound" | "close">;

/** The authority of the owner at their own terminal: the only one a built-in command is admitted under. */
export const OWNER_AUTHORITY = "local";

/**
 * An invocation core seen through one binding (see {@link InvocationCore.bound}).
 *
 * @example
 * const alice = core.bound({ subject: "alice", actor: "ci", taskAuthorityRef: "tok-1", preset: "agent" });
 * const outcome = await alice.invoke(request);
 */
export type BoundInvocationCore = Pick<InvocationCore, "binding" | "invoke">;

/** The binding as the core keeps it: checked, copied and frozen. */
export function checkBinding(b: HostBinding): HostBinding {
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
