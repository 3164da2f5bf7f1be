// A revision's projection: the MCP tools its enabled extensions offer
// (chosen, named, indexed and measured) and its CLI route table, built from
// descriptors or from a catalog's tool index; a tool is resolved by its exact
// name. Listing pages of it is `_tool-list.ts`.
import {
  type CommandHints,
  type CommandSpec,
  mcpInputSchema,
  type RequestsSpec,
  type TaskSupport,
} from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";
import { profileNaming, revisionNamings } from "../config/index.js";
import {
  type CliRouteTable,
  type IndexedTool,
  type InstalledExtension,
  type LoadedExtension,
  type McpTool,
  type OwnerConfig,
  PAGE_MAX_BYTES,
  ProfileError,
  type ProfileRevision,
  TOOL_DESCRIPTION_MAX_LENGTH,
  type ToolNaming,
  type ToolProjection,
} from "../model/index.js";
import { surfaceRefusal } from "./_callable.js";
import { type SlugIndex, sharedIdentities } from "./_client-fit-slugs.js";
import { listedOutputSchema } from "./_envelope.js";
import {
  type ClientFitRevision,
  checkClientFitDigits,
  clientFitNames,
  toolName,
  toolNameLength,
} from "./_tool-names.js";

/** What a projection keeps for listing, beside its public members. */
export interface Internals {
  readonly byName: Map<string, McpTool>;
  readonly bytes: Map<McpTool, number>;
  /** What each tool's command requests of a preset. */
  readonly requests: Map<McpTool, RequestsSpec>;
  readonly visible: Map<string, { readonly tools: readonly McpTool[]; readonly binding: string }>;
}
const internals = new WeakMap<ToolProjection, Internals>();

const COMMAND_RESULT_FEATURE = "rukh.command-result/1";

/**
 * A tool whose schemas are built the first time they are read (a first page
 * needs 32 of 10,000); it serializes as the plain tool.
 */
class LazyTool implements McpTool {
  #command: CommandSpec | undefined;
  #input: JsonObject | undefined;
  /** What its command requests of a preset, and whether it runs only confined (read by listing, never serialized). */
  readonly requests: ListedRequests;
  // null: not built yet (undefined is a text result's: no output schema).
  #output: JsonObject | undefined | null = null;
  readonly #load: () => CommandSpec;
  readonly #title: string | undefined;
  constructor(
    readonly name: string,
    readonly identity: string,
    command: CommandSpec | (() => CommandSpec),
    indexed?: { readonly title: string; readonly requests: ListedRequests },
  ) {
    this.#title = indexed?.title;
    this.requests = indexed?.requests ?? listedRequests(command as CommandSpec);
    if (typeof command === "function") this.#load = command;
    else {
      this.#command = command;
      this.#load = () => command;
    }
  }
  get #spec(): CommandSpec {
    if (this.#command === undefined) this.#command = this.#load();
    return this.#command;
  }
  get title(): string {
    return this.#title ?? this.#spec.summary;
  }
  get description(): string {
    return this.#spec.description ?? this.#spec.summary;
  }
  get hints(): CommandHints | undefined {
    return this.#spec.hints;
  }
  get task(): TaskSupport | undefined {
    return this.#spec.task;
  }
  get inputSchema(): JsonObject {
    if (this.#input === undefined) this.#input = mcpInputSchema(this.#spec);
    return this.#input;
  }
  get outputSchema(): JsonObject | undefined {
    if (this.#output === null) this.#output = listedOutputSchema(this.#spec);
    return this.#output;
  }
  toJSON(): McpTool {
    const { name, title, description, inputSchema, outputSchema, identity } = this;
    return {
      name,
      title,
      description,
      inputSchema,
      ...(outputSchema !== undefined && { outputSchema }),
      identity,
    };
  }
}

/** What a preset is asked of a tool: its command's requests, and whether it runs only confined. */
export type ListedRequests = RequestsSpec & { readonly strict?: boolean };

/** {@link ListedRequests} of a command. */
function listedRequests(command: CommandSpec): ListedRequests {
  return command.confinement === "strict"
    ? { ...command.requests, strict: true }
    : command.requests;
}

/**
 * A command's tool as a catalog indexes it. The size leaves out the name,
 * which depends on the revision: a name is ASCII, so the tool's size on a
 * page is `bytes` plus the name's length (what {@link checkedSize} computes).
 * The actions and resources are what a preset must grant to be shown it.
 */
export function indexedTool(command: CommandSpec): IndexedTool {
  const size = Buffer.byteLength(JSON.stringify(new LazyTool("", command.identity, command))) + 1;
  const { actions, resources } = command.requests;
  return command.confinement === "strict"
    ? [command.identity, size, command.summary, actions, resources, true]
    : [command.identity, size, command.summary, actions, resources];
}

/** A tool's encoded size on a page; throws when its schema is not closed or it cannot fit one page. */
export function checkedSize(tool: McpTool): number {
  const inputSchema = tool.inputSchema;
  if (inputSchema.type !== "object" || inputSchema.additionalProperties !== false)
    throw new ProfileError(
      "invalid_tool_schema",
      `input schema of ${tool.identity} is not a closed object schema`,
    );
  // Leave room for the page's own framing around the tool.
  const size = Buffer.byteLength(JSON.stringify(tool)) + 1;
  if (size > PAGE_MAX_BYTES - 4_096)
    throw new ProfileError(
      "tool_too_large",
      `metadata of ${tool.identity} is ${size} bytes; a tool must fit one ${PAGE_MAX_BYTES}-byte page`,
    );
  return size;
}

/**
 * The commands of `extensions` that are MCP tools under `config`: eligible
 * for machines, callable over MCP as admission sees it ({@link surfaceRefusal}:
 * managed, not requiring interaction, no feature this host lacks),
 * requiring `rukh.command-result/1`, and exposed; throws `tool_too_large`
 * for a description too long for a tool. Which preset may see each is
 * decided when its list is built ({@link visibleTools}).
 */
export function toolCommands(
  config: OwnerConfig,
  extensions: readonly LoadedExtension[],
): CommandSpec[] {
  const exposedCommands = new Set(config.exposure?.commands ?? []);
  const exposedExtensions = new Set(config.exposure?.extensions ?? []);
  const out: CommandSpec[] = [];
  for (const { descriptor } of extensions)
    for (const command of descriptor.commands) {
      const m = command.machine;
      if (m === undefined || !m.eligible) continue;
      if (surfaceRefusal(command, "mcp") !== null) continue;
      // The machine baseline: a tool's result is a command-result/1 result, declared as required.
      if (!m.requiredFeatures.includes(COMMAND_RESULT_FEATURE)) continue;
      if (!exposedCommands.has(command.identity) && !exposedExtensions.has(descriptor.id)) continue;
      if ((command.description ?? command.summary).length > TOOL_DESCRIPTION_MAX_LENGTH)
        throw new ProfileError(
          "tool_too_large",
          `description of ${command.identity} exceeds ${TOOL_DESCRIPTION_MAX_LENGTH} characters`,
        );
      out.push(command);
    }
  return out;
}

/** The ids of the development links among `extensions`. */
export function devLinkIds(extensions: readonly InstalledExtension[]): string[] {
  return extensions.filter((e) => e.dev !== undefined).map((e) => e.id);
}

/** What a projection is of: a revision, its configuration and its development links. */
export interface ProjectionOf {
  readonly revisionId: string;
  /** The revision's sequence number, which client-fit names carry as its tag. */
  readonly sequence: number;
  readonly commandGeneration: number;
  readonly config: OwnerConfig;
  /** Extension ids that are development links (see `InstalledExtension.dev`). */
  readonly devExtensions: readonly string[];
  /** The names tools get; default the profile's own. */
  readonly naming?: ToolNaming | undefined;
  /**
   * Tools checked and measured now rather than when a page needs them: all
   * (`true`, as a publication does before it commits), none (default) or
   * those named.
   */
  readonly validate?: boolean | ((identity: string) => boolean);
}

/**
 * What a projection of revision `id` is of, under `naming` (default the
 * profile's own).
 */
export function projectionOf(
  id: string,
  revision: ProfileRevision,
  naming?: ToolNaming,
): ProjectionOf {
  return {
    revisionId: id,
    sequence: revision.sequence,
    commandGeneration: revision.commandGeneration,
    config: revision.config,
    devExtensions: devLinkIds(revision.extensions),
    naming,
  };
}

/**
 * Builds the MCP tools of a revision; throws when a name repeats or a tool
 * cannot fit one page. Names are computed for every tool; schemas and sizes
 * when a page needs them, or at once for the tools `validate` names (a publication checks
 * every tool before it commits); `routes` when first read, if given as a
 * function.
 */
export function buildProjection(
  of: ProjectionOf,
  extensions: readonly LoadedExtension[],
  routes: CliRouteTable | (() => CliRouteTable),
): ToolProjection {
  const naming = of.naming ?? profileNaming(of.config);
  const tools = named(
    { ...of, naming },
    toolCommands(of.config, extensions).map((c) => [c.identity, c]),
  );
  return assemble({ ...of, naming }, tools, routes);
}

/**
 * The tools of `entries` under their names in the revision, in name order;
 * throws when two identities get one name.
 */
function named(
  of: ProjectionOf & { readonly naming: ToolNaming },
  entries: readonly (readonly [
    string,
    CommandSpec | (() => CommandSpec),
    { readonly title: string; readonly requests: RequestsSpec }?,
  ])[],
): LazyTool[] {
  const { naming, revisionId } = of;
  const nameOf =
    naming.style === "full"
      ? (identity: string) => toolName(naming.namespace, revisionId, identity)
      : clientFitNamer(
          of,
          naming.namespace,
          entries.map(([identity]) => identity),
        );
  const byName = new Map<string, McpTool>();
  const tools = entries.map(([identity, command, indexed]) => {
    const tool = new LazyTool(nameOf(identity), identity, command, indexed);
    const prior = byName.get(tool.name);
    if (prior !== undefined)
      throw new ProfileError(
        "tool_name_conflict",
        `tool name ${tool.name} is computed for both ${prior.identity} and ${tool.identity}`,
      );
    byName.set(tool.name, tool);
    return tool;
  });
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The namespaces a revision names tools client-fit in: its configuration's
 * (the profile's and every endpoint's) and `also`'s.
 */
function clientFitNamespaces(config: OwnerConfig, also?: string): string[] {
  const out = revisionNamings(config)
    .filter((n) => n.style === "compact")
    .map((n) => n.namespace);
  if (also !== undefined && !out.includes(also)) out.push(also);
  return out;
}

/**
 * The client-fit name of each of `identities` under `namespace`: digits are
 * chosen over every client-fit naming of the revision, so each naming's
 * names are the same whichever projection computes them.
 */
function clientFitNamer(
  of: ProjectionOf,
  namespace: string,
  identities: readonly string[],
): (identity: string) => string {
  const names = clientFitNames(of, clientFitNamespaces(of.config, namespace), identities).get(
    namespace,
  )!;
  return (identity) => names.get(identity)!;
}

/** The projection object over `tools` (in name order), with the internals listing needs. */
function assemble(
  of: ProjectionOf & { readonly naming: ToolNaming },
  tools: readonly LazyTool[],
  routes: CliRouteTable | (() => CliRouteTable),
  known?: ReadonlyMap<string, number>,
): ToolProjection {
  const { revisionId, commandGeneration, config, devExtensions, naming } = of;
  const validate = of.validate ?? false;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const projection = {
    revisionId,
    commandGeneration,
    endpointNamespace: naming.namespace,
    naming,
    tools,
    config,
    devExtensions: [...devExtensions].sort(),
  } as Partial<{ -readonly [K in keyof ToolProjection]: ToolProjection[K] }>;
  // An MCP host never reads the CLI routes: built on first use when given as a function.
  if (typeof routes !== "function") projection.routes = routes;
  else {
    let built: CliRouteTable | undefined;
    Object.defineProperty(projection, "routes", {
      enumerable: true,
      get: () => {
        if (built === undefined) built = routes();
        return built;
      },
    });
  }
  const bytes = new Map<McpTool, number>();
  for (const t of tools) {
    if (validate === true || (validate !== false && validate(t.identity)))
      bytes.set(t, checkedSize(t));
    else {
      const size = known?.get(t.identity);
      if (size !== undefined) bytes.set(t, size + t.name.length);
    }
  }
  const requests = new Map<McpTool, ListedRequests>(tools.map((t) => [t, t.requests]));
  internals.set(projection as ToolProjection, { byName, bytes, requests, visible: new Map() });
  return projection as ToolProjection;
}

/**
 * Checks the tools a publication adds before it commits, without building
 * its projection: each has a closed input schema and fits a page under its
 * longest name (the names of the profile and of every endpoint).
 */
export function checkToolSizes(
  config: OwnerConfig,
  tools: readonly IndexedTool[],
  commandOf: (identity: string) => CommandSpec,
): void {
  const namings = revisionNamings(config);
  // A full name is longer than a client-fit one, and its length does not
  // depend on the namespace: a tool that fits a page under the longest naming
  // fits under every one. A client-fit name is measured at its longest.
  const style = namings.some((n) => n.style === "full") ? "full" : "compact";
  // Only the name's length counts: measured, never hashed.
  for (const [identity] of tools)
    checkedSize(
      new LazyTool("x".repeat(toolNameLength(identity, style)), identity, commandOf(identity)),
    );
}

/** Whether the profile or an endpoint names tools compactly: only then can two names clash. */
export function hasCompactNames(config: OwnerConfig): boolean {
  return revisionNamings(config).some((n) => n.style !== "full");
}

/**
 * Checks that the client-fit names of a revision's tools, under the
 * profile's naming and every endpoint's, can all be told apart within
 * `CLIENT_FIT_DIGITS.max` digits (`tool_name_conflict` otherwise). Under one
 * naming only the tools whose slug another shares can clash, so only those
 * `slugs` names are hashed; under two or more, or on a clash (so that the
 * error names the pair the whole revision's check names), every tool is.
 */
export function checkClientFitNames(
  config: OwnerConfig,
  revision: ClientFitRevision,
  slugs: SlugIndex,
  tools: () => readonly IndexedTool[],
): void {
  const namespaces = clientFitNamespaces(config);
  const everyTool = () =>
    checkClientFitDigits(
      revision,
      namespaces,
      tools().map(([identity]) => identity),
    );
  if (namespaces.length > 1) {
    everyTool();
    return;
  }
  try {
    checkClientFitDigits(revision, namespaces, sharedIdentities(slugs));
  } catch (e) {
    if (e instanceof ProfileError && e.code === "tool_name_conflict") everyTool();
    throw e;
  }
}

/**
 * A revision's projection from its tool index (the tools
 * {@link toolCommands} chose, with the sizes and titles {@link indexedTool}
 * gives): names are computed here (two identities with one name throw
 * `tool_name_conflict`); a tool's command is read from `commandOf` only when
 * its description or schemas are, and paging uses the indexed sizes — except
 * for the tools `validate` names, which are checked and measured now.
 */
export function projectionFromIndex(
  of: ProjectionOf,
  index: {
    readonly tools: readonly IndexedTool[];
    readonly commandOf: (identity: string) => CommandSpec;
  },
  routes: () => CliRouteTable,
): ToolProjection {
  const naming = of.naming ?? profileNaming(of.config);
  const tools = named(
    { ...of, naming },
    index.tools.map(([identity, , title, actions, resources, strict]) => [
      identity,
      () => index.commandOf(identity),
      { title, requests: { actions, resources, ...(strict === true && { strict }) } },
    ]),
  );
  const known = new Map(index.tools.map(([identity, bytes]) => [identity, bytes]));
  return assemble({ ...of, naming }, tools, routes, known);
}

/** What listing needs of a projection built here; throws for any other object. */
export function projectionInternals(projection: ToolProjection): Internals {
  const i = internals.get(projection);
  if (i === undefined)
    throw new ProfileError("invalid_state", "not a projection built by @rukh/profile");
  return i;
}

/**
 * Resolves an MCP tool name in a projection: exact match only, or `undefined`
 * for unknown and obsolete names (callers must answer both alike).
 *
 * @example
 * const tool = resolveTool(projection, request.params.name);
 * if (tool === undefined) throw unknownTool();
 */
export function resolveTool(projection: ToolProjection, name: string): McpTool | undefined {
  return projectionInternals(projection).byName.get(name);
}

/**
 * The CLI view of a projection: every enabled command with its paths,
 * aliases and `cliSpec`, and the groups, sorted by path.
 *
 * @example
 * for (const r of cliRoutes(projection).commands) console.log(r.path.join(" "), r.identity);
 */
export function cliRoutes(projection: ToolProjection): CliRouteTable {
  return projection.routes;
}
