// A tool exactly as a list sends it to a client: what an MCP host writes and
// what `tools list --check` measures are this one object.

import type { JsonObject } from "@rukh/json";
import type { McpTool, ToolProjection } from "../model/index.js";
import { type ToolAnnotations, toolAnnotations } from "./_annotations.js";

/**
 * One tool of a `tools/list` result: no identity, no hints (they travel as
 * `annotations`), no member that would be empty.
 *
 * @example
 * const bytes = Buffer.byteLength(JSON.stringify(listedTool(projection, "agent", tool)));
 */
export interface ListedTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations?: ToolAnnotations;
}

/**
 * `tool` as preset `preset` of `projection` lists it, with the preset's
 * annotations.
 *
 * @example
 * const wire = page.tools.map((t) => listedTool(projection, binding.preset, t));
 */
export function listedTool(projection: ToolProjection, preset: string, tool: McpTool): ListedTool {
  const annotations = toolAnnotations(projection, preset, tool);
  const outputSchema = tool.outputSchema;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(outputSchema !== undefined && { outputSchema }),
    ...(annotations !== undefined && { annotations }),
  };
}
