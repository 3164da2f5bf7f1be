// `mcp serve`: the endpoint it is launched as, read once from the owner
// configuration, served over stdio until the client goes or the owner stops
// it. Only this path loads the MCP host.

import { userInfo } from "node:os";
import { type BuiltinContext, linkAgain } from "@rukh/cli";
import type { StateDirectory } from "@rukh/profile";
import { note, OK, STATE, UsageError } from "../kit/index.js";
import { MCP_CLIENTS } from "./_clients.js";
import { consentedUnconfinedWarning, refuseUnconfinable } from "./_endpoint.js";
import { type Launch, launchEndpoint, type ServeRequest } from "./_launch.js";
import { readLaunch } from "./_launches.js";
import { announcePlaces } from "./_replica.js";

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
  const authority = launchAuthority(state, brand.name, request, endpoint);
  await refuseUnconfinable(state, brand.name, [endpoint.preset]);
  note(
    ctx,
    `${brand.name} mcp: endpoint ${endpoint.name} (preset ${endpoint.preset}${endpoint.naming === undefined ? "" : `, ${endpoint.naming.style} tool names`})\n`,
  );
  const active = await state.activeRevisionId();
  const presets = active === null ? {} : (await state.readRevision(active)).config.presets;
  const warning = consentedUnconfinedWarning(endpoint.preset, presets, brand.name);
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
      taskAuthorityRef: authority,
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

/**
 * The task authority a stdio server binds its calls to: `launch:<id>` for
 * the launch reference its client's configuration was given (issued here,
 * not revoked, for the endpoint served), or `local` for a server the owner
 * starts by hand.
 */
function launchAuthority(
  state: StateDirectory,
  brand: string,
  request: ServeRequest,
  endpoint: Launch,
): string {
  if (request.launch === undefined) return "local";
  const r = readLaunch(state, request.launch);
  const again = (client: string) => `${brand} mcp install --client ${client}`;
  if (r === undefined)
    throw new UsageError(
      `--launch ${JSON.stringify(request.launch)}: no such launch reference in this state directory; write the client's configuration again (${brand} mcp install --client ${MCP_CLIENTS[0]}, or the client it is for; ${brand} mcp launches lists those issued here)`,
    );
  if (r.revokedAt !== undefined)
    throw new UsageError(
      `--launch ${r.id} was revoked at ${r.revokedAt}: this server does not start for it; write ${r.client}'s configuration again (${again(r.client)})`,
    );
  const serves =
    r.endpoint !== undefined ? endpoint.name === r.endpoint : endpoint.preset === r.preset;
  if (!serves)
    throw new UsageError(
      `--launch ${r.id} was issued for ${r.client} and ${r.endpoint !== undefined ? `endpoint ${r.endpoint}` : `preset ${r.preset}`}, not for endpoint ${endpoint.name} (preset ${endpoint.preset}); write its configuration again (${again(r.client)})`,
    );
  return `launch:${r.id}`;
}
