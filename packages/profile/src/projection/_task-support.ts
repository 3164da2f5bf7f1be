// Whether a tool's MCP call may run as a task under a preset: the owner's
// word for the preset (its own entry, else its extension's `<id>/*`) in
// place of the publisher's, `forbidden` when neither says.

import type { TaskSupport } from "@rukh/descriptor";
import { entryFor, type TaskPreset } from "../model/index.js";

/**
 * How `identity`'s MCP calls run under `preset`: `forbidden` (a call that
 * holds its request), `optional` (a task when the client takes one) or
 * `required` (only as a task).
 *
 * @example
 * effectiveTaskSupport(preset, "acme.files/scan", "optional"); // "optional", unless the preset says otherwise
 */
export function effectiveTaskSupport(
  preset: TaskPreset,
  identity: string,
  published: TaskSupport | undefined,
): TaskSupport {
  return entryFor(preset.tasks, identity) ?? published ?? "forbidden";
}

/**
 * The longest `execution` member a tool listed to a 2025-11-25 client can
 * carry (its task support, when not `forbidden`), with its comma: a page
 * leaves room for it beside each tool's measured size.
 */
export const EXECUTION_MAX_BYTES: number = Buffer.byteLength(
  `,"execution":${JSON.stringify({ taskSupport: "required" satisfies TaskSupport })}`,
);
