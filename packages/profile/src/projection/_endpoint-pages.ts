// Whether each MCP endpoint can greet its clients and list its tools: an
// endpoint whose `limits.responseMaxBytes` cannot carry its instructions in
// the `initialize` answer, or the largest tool it would list in one
// `tools/list` answer, is refused at publication, at its pointer and
// with the smallest value that works, like any other configuration problem.
// Its pages are as large as its limit allows (see `listPageBytes`), so one
// tool alone is what must fit.

import { pointerAppend, type ValidationIssue } from "@rukh/json";
import { mcpEndpoint, presetNamed } from "../config/index.js";
import {
  connectAnswerBytes,
  extensionOf,
  type IndexedTool,
  LIST_ANSWER_RESERVE_BYTES,
  listAnswerBytes,
  type McpEndpoint,
  type OwnerConfig,
  ProfileError,
} from "../model/index.js";
import { ANNOTATIONS_MAX_BYTES } from "./_annotations.js";
import { presetCheck } from "./_callable.js";
import { EXECUTION_MAX_BYTES } from "./_task-support.js";
import { toolNameLength } from "./_tool-names.js";

/** What the check reads of a candidate revision. */
export interface EndpointPagesInput {
  readonly config: OwnerConfig;
  /** Every MCP tool of the revision, as its catalog indexes them. */
  readonly tools: () => readonly IndexedTool[];
  /** The extensions linked for development: listed only by endpoints that name them. */
  readonly devExtensions: readonly string[];
}

/** Whether any endpoint sets a response limit: only then are the tools read. */
export function hasResponseLimits(config: OwnerConfig): boolean {
  return Object.values(config.mcp?.endpoints ?? {}).some(
    (e) => e.limits?.responseMaxBytes !== undefined,
  );
}

/**
 * Throws `invalid_config` when an endpoint's `limits.responseMaxBytes`
 * cannot carry its `initialize` answer with its `instructions`, or a
 * `tools/list` answer holding the largest tool it lists under any preset it
 * binds (its own, and each an HTTP token's scope chooses), measured under
 * its own tool names; one issue per endpoint.
 */
export function checkEndpointPages(input: EndpointPagesInput): void {
  const { config } = input;
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(config.mcp?.endpoints ?? {})) {
    const endpoint = mcpEndpoint(config, name)!;
    const limit = endpoint.limits.responseMaxBytes;
    if (limit === undefined) continue;
    const path = pointerAppend(
      pointerAppend(pointerAppend("/mcp/endpoints", name), "limits"),
      "responseMaxBytes",
    );
    // A client that cannot connect never lists: the instructions' answer first.
    const connect = connectAnswerBytes(endpoint.instructions);
    if (limit < connect) {
      issues.push({
        path,
        code: "invalid_value",
        message: `${limit} cannot carry the initialize answer with the endpoint's instructions (${connect - LIST_ANSWER_RESERVE_BYTES} bytes as JSON); set at least ${connect}`,
      });
      continue;
    }
    const largest = largestListed(input, endpoint);
    if (largest === undefined) continue;
    const needed = listAnswerBytes(largest.bytes);
    if (limit >= needed) continue;
    issues.push({
      path,
      code: "invalid_value",
      message: `${limit} cannot carry a tools/list answer holding the tool ${largest.identity} (${largest.bytes} bytes); set at least ${needed}`,
    });
  }
  if (issues.length > 0)
    throw new ProfileError(
      "invalid_config",
      `owner configuration is invalid: ${issues[0]!.path} ${issues[0]!.message}`,
      { issues },
    );
}

/** The largest tool the endpoint lists to any preset it binds, with its size on a page. */
function largestListed(
  input: EndpointPagesInput,
  endpoint: McpEndpoint,
): { readonly identity: string; readonly bytes: number } | undefined {
  const presets = [
    endpoint.preset,
    ...(endpoint.http?.auth.presets ?? []).map((p) => p.preset),
  ].map((p) => presetCheck(presetNamed(input.config, p)));
  const hidden = new Set(input.devExtensions.filter((e) => !endpoint.devExtensions.includes(e)));
  let largest: { identity: string; bytes: number } | undefined;
  for (const [identity, bytes, , actions, resources, strict] of input.tools()) {
    if (hidden.has(extensionOf(identity))) continue;
    // As a page measures it: with room for the annotations a preset gives it, and its task support.
    const size =
      bytes +
      toolNameLength(identity, endpoint.naming.style) +
      ANNOTATIONS_MAX_BYTES +
      EXECUTION_MAX_BYTES;
    if (largest !== undefined && size <= largest.bytes) continue;
    if (presets.some((refuse) => refuse({ identity, actions, resources, strict }) === null))
      largest = { identity, bytes: size };
  }
  return largest;
}
