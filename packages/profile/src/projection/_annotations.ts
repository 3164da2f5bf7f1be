// What a tool's MCP annotations say of its command, for one preset: the
// publisher's hints (rukh.extension/3), or the owner's for that preset in
// their place, and over both what the preset's enforcement proves.

import type { CommandHints } from "@rukh/descriptor";
import { presetNamed } from "../config/index.js";
import {
  entryFor,
  type McpTool,
  ProfileError,
  type TaskPreset,
  type ToolProjection,
} from "../model/index.js";

/**
 * A tool's MCP `annotations`: only the hints someone gave or enforcement
 * proves (a client takes the protocol's defaults for the rest).
 *
 * @example
 * const a: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
 */
export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * The longest `annotations` member a tool can carry on the wire, with its
 * comma: a page leaves room for it beside each tool's measured size.
 */
export const ANNOTATIONS_MAX_BYTES = Buffer.byteLength(
  `,"annotations":${JSON.stringify({
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  } satisfies Required<ToolAnnotations>)}`,
);

/**
 * What enforcement proves of every command of `preset`, whatever its hints:
 * a strict command runs in a network namespace of its own with nothing in
 * it (R10), so it reaches no open world.
 */
export function provenHints(preset: TaskPreset): CommandHints {
  return preset.enforcement === "strict" ? { openWorld: false } : {};
}

/**
 * The hints of `identity` under `preset`: the owner's for it (its own entry,
 * else its extension's `<id>/*`) in place of the publisher's, then what the
 * preset's enforcement proves over either.
 */
export function effectiveHints(
  preset: TaskPreset,
  identity: string,
  published: CommandHints | undefined,
): CommandHints {
  return { ...(entryFor(preset.hints, identity) ?? published), ...provenHints(preset) };
}

/**
 * The MCP annotations of `tool` as preset `presetName` lists it, or
 * `undefined` when nobody gave a hint and enforcement proves none.
 *
 * @example
 * const annotations = toolAnnotations(projection, "agent", tool); // { openWorldHint: false }
 */
export function toolAnnotations(
  projection: ToolProjection,
  presetName: string,
  tool: McpTool,
): ToolAnnotations | undefined {
  const preset = presetNamed(projection.config, presetName);
  if (preset === undefined)
    throw new ProfileError(
      "unknown_preset",
      `preset "${presetName}" is not defined in this revision`,
    );
  const h = effectiveHints(preset, tool.identity, tool.hints);
  const out = {
    ...(h.readOnly !== undefined && { readOnlyHint: h.readOnly }),
    ...(h.destructive !== undefined && { destructiveHint: h.destructive }),
    ...(h.idempotent !== undefined && { idempotentHint: h.idempotent }),
    ...(h.openWorld !== undefined && { openWorldHint: h.openWorld }),
  };
  return Object.keys(out).length === 0 ? undefined : out;
}
