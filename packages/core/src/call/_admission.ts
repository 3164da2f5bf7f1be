// Admission: whether one request may run, decided from what is installed and
// who the host is bound to. Pure — the caller reads the revision, its
// projection and the stored descriptor; nothing here touches a file or a clock.

import { isAbsolute, join, relative } from "node:path";
import { COMMAND_RESULT_MAX_BYTES, RESULT_VALIDATION_MAX_MS } from "@rukh/command-result";
import {
  type CommandSpec,
  decodeJsonInputs,
  type ExtensionDescriptor,
  type InputIssueCode,
  type ValidatedInputs,
  validateInputs,
} from "@rukh/descriptor";
import type { ValidationIssue } from "@rukh/json";
import {
  callRefusal,
  type InstalledExtension,
  PRESET_RESOURCE_DEFAULTS,
  type ProfileRevision,
  presetNamed,
  resolveTool,
  STRICT_UIDS_DEFAULT,
  type StrictUids,
  type TaskPreset,
  type ToolProjection,
} from "@rukh/profile";
import type { HostBinding, InvocationRequest, OutcomeReason } from "../contract/index.js";
import { type ResultLimits, resultLimitsOf } from "../journal/index.js";
import {
  type Confinement,
  type LaunchPlan,
  type LaunchRequest,
  launchPlan,
  type ResourceLimits,
  strictHome,
} from "../process/index.js";

/** Why a request does not run, and as much of what it named as is known. */
export interface Rejection {
  readonly reject: OutcomeReason;
  readonly revisionId?: string;
  /** The command, once the request named one that exists. */
  readonly identity?: string;
  readonly issues?: readonly ValidationIssue<InputIssueCode>[];
  readonly message: string;
}

/** The command a request names, found in the active revision. */
export interface Target {
  readonly revisionId: string;
  readonly identity: string;
  readonly extension: InstalledExtension;
}

/** A request that may run: the command, its checked inputs and the preset it runs under. */
export interface Admitted {
  readonly revisionId: string;
  /** The host binding the call runs for. */
  readonly binding: HostBinding;
  readonly digest: string;
  readonly packageDir: string;
  /** The command's program, inside its package. */
  readonly program: string;
  readonly command: CommandSpec;
  readonly preset: TaskPreset;
  readonly validated: ValidatedInputs;
  readonly limits: ResourceLimits;
  readonly resultMaxBytes: number;
  /** How long validating the call's result may take, elapsed, in ms (the owner's `limits.maxResultValidationMs`). */
  readonly resultValidationMaxMs: number;
  /** How the call's result is kept to be read again. */
  readonly keptResults: ResultLimits;
  /** Whether the journal keeps the inputs themselves, not only their digest. */
  readonly recordInputs: boolean;
  /** Whether the package is a development link (unsigned, the local user's own). */
  readonly dev: boolean;
  /** The uids a root host's strict command may take (the owner's range, or the default). */
  readonly strictUids: StrictUids;
}

/** An admitted request and how it is launched. */
export interface Planned extends Admitted {
  readonly plan: LaunchPlan;
  /**
   * The same launch started held (Node and the runtime's hold bootstrap
   * only, the program run once released), for a host that keeps processes
   * ready: a managed Node command whose tree ends with its host. `null`
   * for any other.
   */
  readonly heldPlan: LaunchPlan | null;
  /** The shell a watchdog runs on, for a plan without a pid namespace. */
  readonly watchdogShell: string | null;
}

/** What admission decides from: the active revision as read for this one request. */
export interface AdmissionInput {
  readonly request: InvocationRequest;
  readonly binding: HostBinding;
  readonly activeRevisionId: string | null;
  readonly revision: ProfileRevision;
  /** The revision's projection; needed only for MCP calls and tool names. */
  readonly projection: ToolProjection | undefined;
  /** The development links MCP calls of this host may run (see `InvocationCoreOptions.devExtensions`). */
  readonly devAllowed: readonly string[];
}

/** Why JSON arguments were refused, in the words of the surface that sent them. */
const JSON_REFUSAL = {
  mcp: "the arguments do not match the tool's input schema",
  cli: "the inputs do not match the command's declaration",
} as const;
const exposedCache = new WeakMap<ToolProjection, ReadonlySet<string>>();

function memo(
  cache: WeakMap<ToolProjection, ReadonlySet<string>>,
  p: ToolProjection,
  ids: () => string[],
): ReadonlySet<string> {
  let s = cache.get(p);
  if (s === undefined) {
    s = new Set(ids());
    cache.set(p, s);
  }
  return s;
}

const exposedTools = (p: ToolProjection) =>
  memo(exposedCache, p, () => p.tools.map((t) => t.identity));

/**
 * Rejects a request resolved in a revision that is no longer active, before
 * anything of that revision is read.
 */
export function checkRevision(
  request: InvocationRequest,
  activeRevisionId: string | null,
): Rejection | null {
  if (activeRevisionId === null) return { reject: "not_found", message: "nothing is installed" };
  if (request.revisionId !== undefined && request.revisionId !== activeRevisionId)
    return {
      reject: "obsolete_revision",
      message: "the command was resolved in a profile revision that is no longer active",
    };
  return null;
}

/** Finds the command a request names: by identity, or by exact tool name in the projection. */
export function targetOf(input: AdmissionInput): Target | Rejection {
  const stale = checkRevision(input.request, input.activeRevisionId);
  if (stale !== null) return stale;
  const revisionId = input.activeRevisionId as string;
  const ref = input.request.command;
  let identity: string;
  if ("toolName" in ref) {
    const tool = input.projection && resolveTool(input.projection, ref.toolName);
    if (tool === undefined) return { reject: "not_found", revisionId, message: "no such tool" };
    identity = tool.identity;
  } else identity = ref.identity;
  const slash = identity.indexOf("/");
  const extension = input.revision.extensions.find((e) => e.id === identity.slice(0, slash));
  if (slash < 1 || extension === undefined)
    return { reject: "not_found", revisionId, message: "no such command" };
  return { revisionId, identity, extension };
}

/**
 * Decides whether the target runs for this host: whether it can be called
 * at all (`callRefusal`: the surface's rules, then the preset's commands,
 * actions and resources — the question listing asks of every tool), its
 * exposure over MCP, then the inputs.
 *
 * @example
 * const target = targetOf(input);
 * const decision = "reject" in target ? target : admit(input, target, descriptor, packageDir);
 */
export function admit(
  input: AdmissionInput,
  target: Target,
  descriptor: ExtensionDescriptor,
  packageDir: string,
): Admitted | Rejection {
  const { request, binding, revision, projection } = input;
  const { revisionId, identity, extension } = target;
  const command = descriptor.commands.find((c) => c.identity === identity);
  if (command === undefined) return { reject: "not_found", revisionId, message: "no such command" };
  const no = (reject: OutcomeReason, message: string): Rejection => ({
    reject,
    revisionId,
    identity,
    message,
  });
  if (!extension.enabled) return no("not_exposed", "the command's extension is disabled");
  const config = revision.config;
  const preset = presetNamed(config, binding.preset);
  // The one answer listing also gives: a tool is listed exactly when this is null.
  const refused = callRefusal(command, preset, request.surface);
  if (refused !== null) return no(refused.reason, refused.message);
  // callRefusal refuses a binding whose preset the revision does not define.
  const granted = preset as TaskPreset;
  // Over MCP it must also be a tool of the projection. On the CLI every
  // command of an enabled extension is routed: publication refuses a
  // revision whose routes conflict, so the revision alone decides.
  if (request.surface === "mcp") {
    if (projection === undefined || !exposedTools(projection).has(identity))
      return no("not_exposed", "the command is not an exposed tool");
    // Unsigned and the local user's own: only where the owner named it.
    if (extension.dev !== undefined && !input.devAllowed.includes(extension.id))
      return no("not_exposed", "the command is a development link this endpoint does not name");
  }
  let supplied = request.supplied;
  if ("json" in supplied) {
    // JSON arguments are decoded against the command the call resolved, here, once.
    const decoded = decodeJsonInputs(command, supplied.json);
    if (!decoded.ok)
      return { ...no("invalid_input", JSON_REFUSAL[request.surface]), issues: decoded.issues };
    supplied = decoded.value;
  }
  const validated = validateInputs(command, supplied);
  if (!validated.ok)
    return { ...no("invalid_input", "the inputs are invalid"), issues: validated.issues };
  const program = join(packageDir, ...command.execute.program.split("/"));
  const rel = relative(packageDir, program);
  if (rel.startsWith("..") || isAbsolute(rel))
    return no("not_found", "the command's program is outside its package");
  return {
    revisionId,
    binding,
    digest: extension.digest,
    packageDir,
    program,
    command,
    preset: granted,
    validated: validated.value,
    limits: { ...PRESET_RESOURCE_DEFAULTS, ...granted.limits },
    resultMaxBytes: config.limits?.maxCommandResultBytes ?? COMMAND_RESULT_MAX_BYTES,
    resultValidationMaxMs: config.limits?.maxResultValidationMs ?? RESULT_VALIDATION_MAX_MS,
    keptResults: resultLimitsOf(config),
    recordInputs: config.journal?.recordInputs === true,
    dev: extension.dev !== undefined,
    strictUids: config.sandbox?.uids ?? STRICT_UIDS_DEFAULT,
  };
}

/** How an admitted call is launched, or why its preset's enforcement cannot be had here. */
export function plan(
  admitted: Admitted,
  request: InvocationRequest,
  confinement: Confinement,
  cwd: string,
): Planned | Rejection {
  const unavailable = (why: string): Rejection => ({
    reject: "enforcement_unavailable",
    revisionId: admitted.revisionId,
    identity: admitted.command.identity,
    message: `the strict enforcement profile is not available here: ${why}`,
  });
  if (admitted.preset.enforcement === "strict" && confinement.strictUnavailable !== null)
    return unavailable(confinement.strictUnavailable);
  const launchRequest: LaunchRequest = {
    profile: admitted.preset.enforcement,
    runtime: admitted.command.execute.runtime,
    program: admitted.program,
    packageDir: admitted.packageDir,
    args: request.passthroughArgs ?? [],
    cwd: request.cwd ?? cwd,
    limits: admitted.limits,
    interactive: admitted.command.execute.mapping === "passthrough",
  };
  const home = strictHome(confinement.environment);
  const launch = launchPlan(launchRequest, confinement.environment, home);
  if ("unavailable" in launch) return unavailable(launch.unavailable);
  const holdable =
    launch.tree === "pid-namespace" &&
    launchRequest.runtime === "node" &&
    !launchRequest.interactive;
  const held = holdable
    ? launchPlan({ ...launchRequest, held: true }, confinement.environment, home)
    : null;
  return {
    ...admitted,
    plan: launch,
    heldPlan: held !== null && !("unavailable" in held) ? held : null,
    watchdogShell: launch.tree === "process-group" ? confinement.environment.shell : null,
  };
}
