// Which endpoint a client's configuration starts: the one named, an existing
// one whose names fit the client, or a new one created for it (compact names
// for the 64-character clients) and published with the owner configuration.

import type { OwnerConfig, StateDirectory } from "@rukh/profile";
import {
  current,
  ENDPOINT_OR_PRESET,
  type Profile,
  presetOf,
  Refusal,
  UsageError,
} from "../kit/index.js";
import { MCP_CLIENTS, type McpClient, nameLimit } from "./_clients.js";

/** What a client was asked to start. */
export interface EndpointRequest {
  readonly client: McpClient;
  /** The server's name in the client (the brand; its prefix counts towards the limit). */
  readonly server: string;
  readonly endpoint?: string;
  readonly preset?: string;
  /** Report what would be created, publish nothing. */
  readonly dryRun?: boolean;
}

/** The `mcp serve` arguments chosen, and notes for stderr. */
export interface EndpointChoice {
  readonly args: readonly string[];
  readonly endpoint?: string;
  readonly preset: string;
  readonly notes: readonly string[];
  /**
   * Publishes the endpoint the choice needs (absent: it exists already) and
   * returns the note saying so. Called last, once nothing else can fail.
   */
  readonly publish?: () => Promise<string>;
}

/**
 * What an owner is told wherever an agent is given preset `name` (a server
 * started, a client configured) whose commands are not confined: they run
 * as the owner's user, with everything that user may do. Without the
 * owner's recorded consent (the preset's `agentConsent`) that is refused,
 * saying how to consent; with it, a note quotes the consent. `undefined`
 * for a strict preset or one that is not defined.
 */
export function consentedUnconfinedWarning(
  name: string,
  presets: OwnerConfig["presets"],
  brand: string,
): string | undefined {
  const preset = Object.hasOwn(presets, name) ? presets[name] : undefined;
  if (preset === undefined || preset.enforcement === "strict") return undefined;
  const risk = `preset ${name} runs commands ${preset.enforcement}, unconfined, as your user: an agent using it can do whatever your user can, ${brand}'s own administration included (trust, install, presets)`;
  if (preset.agentConsent === undefined)
    throw new Refusal(
      `${risk}; it is given to agents only with your consent, recorded in the owner configuration (/presets/${name}/agentConsent): ${brand} preset consent ${name} "<what you allow agents, as you>", or give agents a strict preset`,
      { see: ["preset", "consent", "--help"] },
    );
  return `warning: ${risk}; served with your consent: ${JSON.stringify(preset.agentConsent)}`;
}

/**
 * Refuses to serve presets `names` of the active revision when one of them
 * runs strict and strict confinement is unavailable here: every call of its
 * tools would be refused, so the server does not start, saying why and
 * where to look (`doctor`), rather than list tools that can never run.
 */
export async function refuseUnconfinable(
  state: StateDirectory,
  brand: string,
  names: readonly string[],
): Promise<void> {
  const active = await state.activeRevisionId();
  if (active === null) return;
  const config = (await state.readRevision(active)).config;
  const strict = [...new Set(names)].filter(
    (n) => Object.hasOwn(config.presets, n) && config.presets[n]!.enforcement === "strict",
  );
  if (strict.length === 0) return;
  const { strictUnavailable } = await import("@rukh/core");
  const why = await strictUnavailable(config.sandbox?.program, (await state.places()).journalRoot);
  if (why !== null)
    throw new Refusal(
      `preset ${strict.join(", ")} runs its commands strict, and strict confinement is unavailable here: ${why}; no tool it lists could run, so this server does not start. Install bubblewrap (root-owned, at /usr/bin/bwrap) or name it in the owner configuration's sandbox.program; \`${brand} doctor\` shows every check`,
      { see: ["doctor"] },
    );
}

/**
 * Chooses the endpoint `request` asks for, or the one to create (published
 * by the choice's `publish`, which the caller runs last). A name
 * fits when the longest name its form can produce does, with the client's
 * prefix: extensions installed later then fit too.
 */
export async function endpointFor(
  state: StateDirectory,
  profile: Profile,
  request: EndpointRequest,
): Promise<EndpointChoice> {
  const from = await current(state, request.server);
  const choice = choose(state, profile, request, from);
  const warning = consentedUnconfinedWarning(choice.preset, from.config.presets, request.server);
  return warning === undefined ? choice : { ...choice, notes: [warning, ...choice.notes] };
}

function choose(
  state: StateDirectory,
  profile: Profile,
  request: EndpointRequest,
  from: Awaited<ReturnType<typeof current>>,
): EndpointChoice {
  const { client, server } = request;
  const config = from.config;
  const limit = nameLimit(client, server);
  const longest = (style: "full" | "compact") =>
    (limit?.prefix.length ?? 0) + profile.TOOL_NAME_MAX_LENGTH[style];
  const fits = (style: "full" | "compact") => limit === null || longest(style) <= limit.max;

  if (request.endpoint !== undefined) {
    if (request.preset !== undefined) throw new UsageError(ENDPOINT_OR_PRESET);
    const e = profile.mcpEndpoint(config, request.endpoint);
    if (e === undefined) throw noEndpoint(request.server, config, request.endpoint);
    if (!fits(e.naming.style))
      throw new UsageError(
        `${client} accepts tool names of at most ${limit!.max} characters with its prefix ("${limit!.prefix}"); endpoint ${request.endpoint} has ${e.naming.style} names of up to ${profile.TOOL_NAME_MAX_LENGTH[e.naming.style]}: name an endpoint with compact names, or leave out --endpoint to have one created`,
      );
    return {
      args: ["mcp", "serve", "--endpoint", request.endpoint],
      endpoint: request.endpoint,
      preset: e.preset,
      notes: [],
    };
  }

  const preset = request.preset ?? profile.DEFAULT_ENDPOINT_PRESET;
  presetOf(profile, config, preset);
  // The default endpoint, when it fits: `mcp serve` alone, or with the preset.
  const byDefault = profile.mcpEndpoint(config)!;
  const customDefault = Object.hasOwn(config.mcp?.endpoints ?? {}, profile.DEFAULT_ENDPOINT);
  if (fits(byDefault.naming.style) && (!customDefault || byDefault.preset === preset))
    return {
      args: byDefault.preset === preset ? ["mcp", "serve"] : ["mcp", "serve", "--preset", preset],
      preset,
      notes: [],
    };
  // An endpoint of the owner's that binds the preset and fits, the client's own first.
  const names = Object.keys(config.mcp?.endpoints ?? {}).sort((a, b) =>
    a === client ? -1 : b === client ? 1 : a < b ? -1 : 1,
  );
  for (const name of names) {
    const e = profile.mcpEndpoint(config, name)!;
    if (e.preset === preset && fits(e.naming.style))
      return { args: ["mcp", "serve", "--endpoint", name], endpoint: name, preset, notes: [] };
  }
  if (!fits("compact"))
    throw new UsageError(
      `${client} accepts tool names of at most ${limit!.max} characters with its prefix ("${limit!.prefix}"), and compact names have up to ${profile.TOOL_NAME_MAX_LENGTH.compact}: the server name ${JSON.stringify(server)} is too long for ${client}`,
    );
  const name = freeName(
    config,
    preset === profile.DEFAULT_ENDPOINT_PRESET ? client : `${client}-${preset}`.slice(0, 60),
  );
  const created: OwnerConfig = {
    ...config,
    mcp: {
      ...config.mcp,
      endpoints: { ...config.mcp?.endpoints, [name]: { preset, toolNames: "compact" } },
    },
  };
  const what = `endpoint ${name} (preset ${preset}, compact tool names) for ${client}`;
  if (request.dryRun === true)
    return {
      args: ["mcp", "serve", "--endpoint", name],
      endpoint: name,
      preset,
      notes: [`would create ${what} (dry run: nothing published)`],
    };
  return {
    args: ["mcp", "serve", "--endpoint", name],
    endpoint: name,
    preset,
    notes: [],
    publish: async () => {
      const p = await state.setConfig(created, { base: from.base });
      return `created ${what}; published profile revision ${p.revisionId.slice(0, 12)}`;
    },
  };
}

/** `base`, or `base-2`, `base-3`, … : the first name no endpoint has. */
function freeName(config: OwnerConfig, base: string): string {
  const taken = config.mcp?.endpoints ?? {};
  if (!Object.hasOwn(taken, base)) return base;
  for (let i = 2; ; i++) if (!Object.hasOwn(taken, `${base}-${i}`)) return `${base}-${i}`;
}

/**
 * The usage error for an endpoint `name` that `config` (`undefined`: nothing
 * published yet) does not define, naming those it does, or the command of
 * `brand` that creates one.
 */
export function noEndpoint(
  brand: string,
  config: OwnerConfig | undefined,
  name: string | undefined,
): UsageError {
  const names = Object.keys(config?.mcp?.endpoints ?? {});
  const [first, ...others] = MCP_CLIENTS;
  const creates = `\`${brand} mcp config --client ${first}\` (or --client ${others.join(", ")}) creates one`;
  const why =
    config === undefined
      ? `nothing is published yet: ${creates}`
      : names.length === 0
        ? `the owner configuration defines none: ${creates}`
        : `expected one of ${names.join(", ")}`;
  return new UsageError(`no endpoint ${JSON.stringify(name)}; ${why}`, {
    see: names.length === 0 ? ["mcp", "config", "--help"] : ["profile", "show"],
  });
}
