// `mcp serve`: resolves the endpoint it is launched as, once, from the owner
// configuration, and serves MCP on stdio until the client goes or the owner
// stops it. Only this path loads the MCP host.

import { userInfo } from "node:os";
import { type BuiltinContext, linkAgain } from "@rukh/cli";
import type { McpEndpoint, StateDirectory } from "@rukh/profile";
import { initialConfig } from "../_current.js";
import { ENDPOINT_OR_PRESET, note, OK, presetOf, STATE, UsageError } from "../_kit.js";
import { noEndpoint, unconfinedWarning } from "../_mcp-endpoint.js";
import { announcePlaces } from "./_replica.js";

/** How `mcp serve` was asked to start: a named endpoint, or the default one with another preset. */
export interface ServeRequest {
  readonly endpoint?: string;
  readonly preset?: string;
}

/**
 * Serves the endpoint `request` names until the transport closes; returns
 * the exit code. An endpoint that cannot start is thrown (a `UsageError` for
 * one the owner named wrong).
 */
export async function serveMcp(
  ctx: BuiltinContext,
  state: StateDirectory,
  brand: { readonly name: string; readonly version: string },
  request: ServeRequest,
): Promise<number> {
  const { serveStdio } = await import("@rukh/mcp");
  // A server starts on the development links' directories as they are now.
  await linkAgain(ctx.stderr, state);
  await announcePlaces(ctx, brand.name, state);
  // What cannot start is thrown, for the command's guard to report.
  const endpoint = await launchEndpoint(ctx, state, brand.name, request);
  note(
    ctx,
    `${brand.name} mcp: endpoint ${endpoint.name} (preset ${endpoint.preset}${endpoint.naming === undefined ? "" : `, ${endpoint.naming.style} tool names`})\n`,
  );
  const active = await state.activeRevisionId();
  const presets = active === null ? {} : (await state.readRevision(active)).config.presets;
  const warning = unconfinedWarning(endpoint.preset, presets, brand.name);
  if (warning !== undefined) note(ctx, `${brand.name} mcp: ${warning}\n`);
  // What the host reports (its close reason among it) goes to stderr, one line each.
  const logger = {
    log(level: string, message: string, data?: Record<string, unknown>) {
      const detail = data === undefined ? "" : ` ${JSON.stringify(data)}`;
      note(ctx, `${brand.name} mcp: ${level}: ${message}${detail}\n`);
    },
  };
  // The launch binding is fixed here, once, from the owner's side: nothing a
  // client sends can change it, and a later edit of the endpoint applies at
  // the next start.
  const host = await serveStdio({
    logger,
    state,
    binding: {
      subject: userInfo().username,
      actor: `${brand.name}-mcp`,
      taskAuthorityRef: "local",
      preset: endpoint.preset,
    },
    // The endpoint as read from the owner configuration, whole: its naming,
    // deadline, limits, development links and instructions reach the tools as one.
    endpoint,
    serverInfo: brand,
  });
  ctx.signal.addEventListener("abort", () => void host.close(), { once: true });
  const why = await host.closed;
  note(ctx, `${brand.name} mcp: closed (${why})\n`);
  return why === "eof" || why === "closed" ? OK : STATE;
}

/** An endpoint as a server starts it; without a naming, each revision's own naming applies. */
export type Launch = Omit<McpEndpoint, "naming"> & { readonly naming?: McpEndpoint["naming"] };

/**
 * The endpoint a server starts as: the one named (it must exist), or the
 * default one — the owner's `default` endpoint, else the confined `agent`
 * preset — whose preset `--preset` may replace. With nothing published yet,
 * only the default endpoint can start: it serves an empty list until tools
 * arrive.
 */
export async function launchEndpoint(
  ctx: BuiltinContext,
  state: StateDirectory,
  brand: string,
  request: ServeRequest,
): Promise<Launch> {
  const profile = await import("@rukh/profile");
  const { DEFAULT_ENDPOINT_PRESET, mcpEndpoint, profileNaming } = profile;
  if (request.endpoint !== undefined && request.preset !== undefined)
    throw new UsageError(ENDPOINT_OR_PRESET);
  const active = await state.activeRevisionId();
  if (active === null) {
    if (request.endpoint !== undefined) throw noEndpoint(brand, undefined, request.endpoint);
    // The preset of a new owner's first configuration, as it will be published.
    if (request.preset !== undefined) presetOf(profile, initialConfig(brand), request.preset);
    // A client configured before the first install gets a live server.
    note(ctx, `${brand} mcp: nothing is installed yet; serving an empty tool list\n`);
    return {
      name: "default",
      preset: request.preset ?? DEFAULT_ENDPOINT_PRESET,
      limits: {},
      devExtensions: [],
    };
  }
  const config = (await state.readRevision(active)).config;
  const found = mcpEndpoint(config, request.endpoint);
  if (found === undefined) throw noEndpoint(brand, config, request.endpoint);
  const endpoint =
    request.preset === undefined
      ? found
      : // The profile's own naming and no endpoint's limits: nothing of the owner's endpoints.
        {
          name: "default",
          preset: request.preset,
          naming: profileNaming(config),
          limits: {},
          devExtensions: [],
        };
  presetOf(profile, config, endpoint.preset);
  return endpoint;
}
