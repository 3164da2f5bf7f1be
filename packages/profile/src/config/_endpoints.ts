// MCP endpoints of an owner configuration: each one a launch binding a
// server is started with (`mcp serve --endpoint NAME`): the preset it serves,
// how its tools are named, its transport limits and its per-call deadline.

import { type JsonValue, pointerAppend } from "@rukh/json";
import {
  DEFAULT_ENDPOINT,
  DEFAULT_ENDPOINT_PRESET,
  MCP_INSTRUCTIONS_MAX_LENGTH,
  MCP_TRANSPORT_LIMITS,
  type McpEndpoint,
  type McpTransportLimits,
  type OwnerConfig,
  type ToolNaming,
} from "../model/index.js";
import {
  ENDPOINT_NAMESPACE,
  isExtensionId,
  NAME,
  type Obj,
  type OwnerConfigChecker,
} from "./_config-checker.js";
import { checkHttpEndpoint } from "./_endpoint-http.js";

/** Most endpoints one configuration may hold. */
const ENDPOINTS_MAX = 64;

/** The naming of the profile's own projection (the CLI's and `tools list`'s). */
export function profileNaming(config: OwnerConfig): ToolNaming {
  return { namespace: config.endpointNamespace, style: config.mcp?.toolNames ?? "full" };
}

/** Whether two namings give every tool the same name. */
export function sameNaming(a: ToolNaming, b: ToolNaming): boolean {
  return a.namespace === b.namespace && a.style === b.style;
}

/**
 * The endpoint `name` of a configuration with its defaults, or `undefined`.
 * Without a name (or named `default`): the owner's `default` endpoint, or —
 * when the owner configures none — the `agent` preset under the profile's naming.
 *
 * @example
 * const endpoint = mcpEndpoint(config, flags.endpoint);
 */
export function mcpEndpoint(config: OwnerConfig, name?: string): McpEndpoint | undefined {
  const endpoints = config.mcp?.endpoints ?? {};
  const key = name ?? DEFAULT_ENDPOINT;
  const e = Object.hasOwn(endpoints, key) ? endpoints[key] : undefined;
  if (e === undefined)
    return key === DEFAULT_ENDPOINT
      ? {
          name: key,
          preset: DEFAULT_ENDPOINT_PRESET,
          naming: profileNaming(config),
          limits: {},
          devExtensions: [],
        }
      : undefined;
  const naming = profileNaming(config);
  return {
    name: key,
    preset: e.preset,
    naming: {
      namespace: e.namespace ?? naming.namespace,
      style: e.toolNames ?? naming.style,
    },
    ...(e.deadlineMs !== undefined && { deadlineMs: e.deadlineMs }),
    limits: { ...e.limits },
    devExtensions: [...(e.devExtensions ?? [])],
    ...(e.http !== undefined && { http: e.http }),
    ...(e.instructions !== undefined && { instructions: e.instructions }),
  };
}

/** Every distinct naming a revision's tools get: the profile's, then each endpoint's. */
export function revisionNamings(config: OwnerConfig): ToolNaming[] {
  const out = [profileNaming(config)];
  for (const name of Object.keys(config.mcp?.endpoints ?? {})) {
    const n = mcpEndpoint(config, name)!.naming;
    if (!out.some((o) => sameNaming(o, n))) out.push(n);
  }
  return out;
}

/** Checks `/mcp/endpoints` of a configuration whose presets are `presets`. */
export function checkEndpoints(
  c: OwnerConfigChecker,
  value: JsonValue | undefined,
  presets: JsonValue | undefined,
): void {
  const all = c.record("/mcp/endpoints", value);
  if (all === undefined) return;
  const names = Object.keys(all);
  if (names.length > ENDPOINTS_MAX)
    c.add("/mcp/endpoints", "invalid_value", `at most ${ENDPOINTS_MAX} endpoints are allowed`);
  for (const name of names) {
    const path = pointerAppend("/mcp/endpoints", name);
    if (!NAME.test(name))
      c.add(
        path,
        "invalid_name",
        `"${name}" is not an endpoint name ([a-z][a-z0-9_-], at most 64)`,
      );
    const e = c.object(
      path,
      all[name],
      ["preset"],
      ["namespace", "toolNames", "deadlineMs", "limits", "devExtensions", "http", "instructions"],
    );
    if (e === undefined) continue;
    const preset = presetOf(c, `${path}/preset`, e.preset, presets);
    if (e.namespace !== undefined)
      c.string(`${path}/namespace`, e.namespace, {
        pattern: ENDPOINT_NAMESPACE,
        code: "invalid_name",
        expected: "an endpoint namespace ([A-Za-z0-9._:-], at most 128)",
      });
    if (e.toolNames !== undefined && e.toolNames !== "full" && e.toolNames !== "compact")
      c.add(`${path}/toolNames`, "invalid_value", 'expected "full" or "compact"');
    if (e.deadlineMs !== undefined) {
      const max =
        typeof preset?.deadlineMs === "number" ? preset.deadlineMs : Number.MAX_SAFE_INTEGER;
      c.integer(`${path}/deadlineMs`, e.deadlineMs, max, `the preset's deadlineMs`);
    }
    if (e.limits !== undefined) checkLimits(c, `${path}/limits`, e.limits);
    if (e.instructions !== undefined) checkInstructions(c, `${path}/instructions`, e.instructions);
    if (e.devExtensions !== undefined)
      c.strings(`${path}/devExtensions`, e.devExtensions, {
        test: isExtensionId,
        code: "invalid_identity",
        expected: "an extension id",
      });
    if (e.http !== undefined)
      checkHttpEndpoint(
        c,
        `${path}/http`,
        e.http,
        (name) =>
          typeof presets === "object" &&
          presets !== null &&
          !Array.isArray(presets) &&
          Object.hasOwn(presets, name),
      );
  }
}

/** The preset an endpoint names, when it is defined. */
function presetOf(
  c: OwnerConfigChecker,
  path: string,
  value: JsonValue | undefined,
  presets: JsonValue | undefined,
): Obj | undefined {
  if (value === undefined) return undefined;
  const name = c.string(path, value, {
    pattern: NAME,
    code: "invalid_name",
    expected: "a preset name",
  });
  if (
    name === undefined ||
    typeof presets !== "object" ||
    presets === null ||
    Array.isArray(presets)
  )
    return undefined;
  if (!Object.hasOwn(presets, name)) {
    c.add(path, "unknown_preset", `preset "${name}" is not defined in /presets`);
    return undefined;
  }
  const p = presets[name];
  return typeof p === "object" && p !== null && !Array.isArray(p) ? p : undefined;
}

function checkLimits(c: OwnerConfigChecker, path: string, value: JsonValue): void {
  const keys = Object.keys(MCP_TRANSPORT_LIMITS);
  const l = c.object(path, value, [], keys);
  if (l === undefined) return;
  for (const k of keys)
    if (l[k] !== undefined)
      c.integer(
        pointerAppend(path, k),
        l[k],
        MCP_TRANSPORT_LIMITS[k as keyof McpTransportLimits],
        `the default ${k}`,
      );
}

/** An endpoint's `instructions`: text of 1 to {@link MCP_INSTRUCTIONS_MAX_LENGTH} characters. */
function checkInstructions(c: OwnerConfigChecker, path: string, value: JsonValue): void {
  if (typeof value !== "string") {
    c.add(path, "expected_string", "expected a string (what clients are told when they connect)");
    return;
  }
  // Counted as a person counts characters: in code points, not UTF-16 units.
  let length = 0;
  for (const _ of value) length++;
  if (length === 0)
    c.add(path, "invalid_value", "instructions are empty; expected some text, or no member");
  else if (length > MCP_INSTRUCTIONS_MAX_LENGTH)
    c.add(
      path,
      "invalid_value",
      `instructions have ${length} characters; expected at most ${MCP_INSTRUCTIONS_MAX_LENGTH} (clients cut longer ones)`,
    );
}
