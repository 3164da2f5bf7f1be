// Which endpoint `mcp serve` starts as, over stdio or HTTP: the one named,
// or the default one (whose preset --preset may replace), read once from the
// active revision's owner configuration.

import type { BuiltinContext } from "@rukh/cli";
import type { McpEndpoint, StateDirectory } from "@rukh/profile";
import { ENDPOINT_OR_PRESET, initialConfig, note, presetOf, UsageError } from "../kit/index.js";
import { noEndpoint } from "./_endpoint.js";

/** How `mcp serve` was asked to start: a named endpoint, or the default one with another preset. */
export interface ServeRequest {
  readonly endpoint?: string;
  readonly preset?: string;
  /** The launch reference the client's configuration was given. */
  readonly launch?: string;
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
