// Whether a command can be called at all, inputs and capacity aside: what
// its surface can give it (a terminal, interaction, the features it
// requires) and what its preset grants it (its command, every action and
// resource it requests). The invocation core asks it of every call
// (admission); listing asks it of every tool before showing one (the surface
// when the tool index is derived, the preset when a preset's list is built).
// One answer for both, so a listed tool can be called and an unlisted one
// cannot.

import { type CommandSpec, REGISTERED_FEATURES, type RequestsSpec } from "@rukh/descriptor";
import { extensionPattern, type TaskPreset } from "../model/index.js";

/** The surface a call comes from. */
export type CallSurface = "cli" | "mcp";

/** Why no call of a command can be admitted, whatever its inputs: an outcome reason and a safe message. */
export interface CallRefusal {
  readonly reason:
    | "passthrough_cli_only"
    | "interaction_required"
    | "feature_unsupported"
    | "preset_denied";
  readonly message: string;
}

/** What a command asks of the preset that runs it: its identity, actions and resources. */
export interface PresetRequest extends RequestsSpec {
  readonly identity: string;
  /** The command runs only confined (its descriptor's `confinement: "strict"`). */
  readonly strict?: boolean | undefined;
}

const FEATURES: ReadonlySet<string> = new Set(REGISTERED_FEATURES);

/**
 * Why `surface` cannot run `command`, or `null`. Over MCP a passthrough
 * program (it needs the terminal) and a command that requires interaction
 * are refused; a command with `interaction: "optional"` runs, and whatever
 * it asks is answered by no one, as on the CLI (a managed command's stdin is
 * closed on both). On both, a required feature this host does not support
 * is refused.
 *
 * @example
 * surfaceRefusal(command, "mcp"); // { reason: "interaction_required", … } or null
 */
export function surfaceRefusal(command: CommandSpec, surface: CallSurface): CallRefusal | null {
  if (surface === "mcp") {
    if (command.execute.mapping === "passthrough")
      return {
        reason: "passthrough_cli_only",
        message: "a passthrough program runs on the CLI only",
      };
    if (command.machine?.interaction === "required")
      return {
        reason: "interaction_required",
        message: "the command requires interaction, which MCP cannot provide",
      };
  }
  if (!(command.machine?.requiredFeatures ?? []).every((f) => FEATURES.has(f)))
    return {
      reason: "feature_unsupported",
      message: "the command requires an unsupported feature",
    };
  return null;
}

const PRESET_UNDEFINED: CallRefusal = {
  reason: "preset_denied",
  message: "the host's task preset is not defined",
};
const PRESET_DENIED: CallRefusal = {
  reason: "preset_denied",
  message: "the task preset does not allow this command or what it requests",
};
const STRICT_REQUIRED: CallRefusal = {
  reason: "preset_denied",
  message:
    "the command runs only confined (its publisher declared confinement strict), and the task preset runs host-trusted",
};

/**
 * {@link presetRefusal} for one preset, asked of many commands: what a
 * preset's list asks of every tool (its patterns and grants are read once).
 *
 * @example
 * const refuse = presetCheck(presetNamed(config, "agent"));
 * const shown = tools.filter((t) => refuse(t) === null);
 */
export function presetCheck(
  preset: TaskPreset | undefined,
): (request: PresetRequest) => CallRefusal | null {
  if (preset === undefined) return () => PRESET_UNDEFINED;
  const commands = new Set(preset.commands);
  const actions = new Set(preset.actions);
  const resources = new Set(preset.resources);
  const strict = preset.enforcement === "strict";
  return ({ identity, actions: asked, resources: needed, strict: only }) =>
    !(commands.has(identity) || commands.has(extensionPattern(identity))) ||
    !asked.every((a) => actions.has(a)) ||
    !needed.every((r) => resources.has(r))
      ? PRESET_DENIED
      : only === true && !strict
        ? STRICT_REQUIRED
        : null;
}

/**
 * Why `preset` (`undefined`: the binding names no preset of the revision)
 * refuses a command: it must match one of the preset's command patterns,
 * and every action and resource the command requests must be granted.
 *
 * @example
 * presetRefusal(presetNamed(config, "agent"), { identity, ...command.requests });
 */
export function presetRefusal(
  preset: TaskPreset | undefined,
  request: PresetRequest,
): CallRefusal | null {
  return presetCheck(preset)(request);
}

/**
 * Why no call of `command` from `surface` under `preset` can be admitted,
 * inputs and capacity aside: {@link surfaceRefusal}, then
 * {@link presetRefusal}. `null`: a call with valid inputs is admitted (given
 * a free slot and the preset's enforcement on this machine).
 *
 * @example
 * const refused = callRefusal(command, presetNamed(config, binding.preset), "mcp");
 * if (refused !== null) return reject(refused.reason, refused.message);
 */
export function callRefusal(
  command: CommandSpec,
  preset: TaskPreset | undefined,
  surface: CallSurface,
): CallRefusal | null {
  return (
    surfaceRefusal(command, surface) ??
    presetRefusal(preset, {
      identity: command.identity,
      ...command.requests,
      strict: command.confinement === "strict",
    })
  );
}
