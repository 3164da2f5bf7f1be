// What `tools list` and `docs` say of a tool's task support under a preset:
// the owner's word for the preset, else the publisher's (`effectiveTaskSupport`).

import type { McpTool, TaskPreset } from "@rukh/profile";
import type { Profile } from "../kit/index.js";

/** How each task support reads in a listing. */
export const TASK_WORDS = {
  forbidden: "never",
  optional: "when the client takes one",
  required: "only",
} as const;

/** `tool`'s task support under `preset`. */
export const taskSupport = (profile: Profile, preset: TaskPreset, tool: McpTool) =>
  profile.effectiveTaskSupport(preset, tool.identity, tool.task);
