import { createHmac, timingSafeEqual } from "node:crypto";
import {
  type CommandHints,
  type CommandSpec,
  mcpInputSchema,
  type RequestsSpec,
} from "@rukh/descriptor";
import { fingerprint, type JsonObject } from "@rukh/json";
import { ANNOTATIONS_MAX_BYTES } from "./_annotations.js";
import { presetCheck, surfaceRefusal } from "./_callable.js";
import { presetNamed } from "./_config.js";
import { profileNaming, revisionNamings } from "./_endpoints.js";
import { listedOutputSchema } from "./_envelope.js";
import { ProfileError } from "./_errors.js";
import { extensionOf } from "./_identity.js";
import {
  CURSOR_MAX_LENGTH,
  listAnswerBytes,
  listPageBytes,
  MCP_TRANSPORT_LIMITS,
  PAGE_MAX_BYTES,
  PAGE_MAX_TOOLS,
  TOOL_DESCRIPTION_MAX_LENGTH,
} from "./_limits.js";
import type {
  CliRouteTable,
  IndexedTool,
  LoadedExtension,
  McpTool,
  OwnerConfig,
  ProfileRevision,
  ToolNaming,
  ToolProjection,
} from "./_model.js";
import { devLinkIds } from "./_revision-check.js";
import { type ClientFitRevision, clientFitNames, toolName, toolNameLength } from "./_tool-names.js";

interface Internals {
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
  /** What its command requests of a preset (read by listing, never serialized). */
  readonly requests: RequestsSpec;
  // null: not built yet (undefined is a text result's: no output schema).
  #output: JsonObject | undefined | null = null;
  readonly #load: () => CommandSpec;
  readonly #title: string | undefined;
  constructor(
    readonly name: string,
    readonly identity: string,
    command: CommandSpec | (() => CommandSpec),
    indexed?: { readonly title: string; readonly requests: RequestsSpec },
  ) {
    this.#title = indexed?.title;
    this.requests = indexed?.requests ?? (command as CommandSpec).requests;
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

/**
 * A command's tool as a catalog indexes it. The size leaves out the name,
 * which depends on the revision: a name is ASCII, so the tool's size on a
 * page is `bytes` plus the name's length (what {@link checkedSize} computes).
 * The actions and resources are what a preset must grant to be shown it.
 */
export function indexedTool(command: CommandSpec): IndexedTool {
  const size = Buffer.byteLength(JSON.stringify(new LazyTool("", command.identity, command))) + 1;
  return [
    command.identity,
    size,
    command.summary,
    command.requests.actions,
    command.requests.resources,
  ];
}

/** A tool's encoded size on a page; throws when its schema is not closed or it cannot fit one page. */
function checkedSize(tool: McpTool): number {
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
  const requests = new Map<McpTool, RequestsSpec>(tools.map((t) => [t, t.requests]));
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
 * `CLIENT_FIT_DIGITS.max` digits (`tool_name_conflict` otherwise).
 */
export function checkClientFitNames(
  config: OwnerConfig,
  revision: ClientFitRevision,
  index: readonly IndexedTool[],
): void {
  clientFitNames(
    revision,
    clientFitNamespaces(config),
    index.map(([identity]) => identity),
  );
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
    index.tools.map(([identity, , title, actions, resources]) => [
      identity,
      () => index.commandOf(identity),
      { title, requests: { actions, resources } },
    ]),
  );
  const known = new Map(index.tools.map(([identity, bytes]) => [identity, bytes]));
  return assemble({ ...of, naming }, tools, routes, known);
}

function inner(projection: ToolProjection): Internals {
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
  return inner(projection).byName.get(name);
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

function visibleFor(
  projection: ToolProjection,
  presetName: string,
  devAllowed: readonly string[] = [],
) {
  const i = inner(projection);
  const key = `${presetName}\0${devAllowed.join(",")}`;
  let v = i.visible.get(key);
  if (v === undefined) {
    const preset = presetNamed(projection.config, presetName);
    if (preset === undefined)
      throw new ProfileError(
        "unknown_preset",
        `preset "${presetName}" is not defined in this revision`,
      );
    // A development link's tools only where the owner named it.
    const hidden = new Set(projection.devExtensions.filter((e) => !devAllowed.includes(e)));
    // Listing is admission asked early: what the preset could not run, it is not shown.
    const refuse = presetCheck(preset);
    const tools = projection.tools.filter(
      (t) =>
        !hidden.has(extensionOf(t.identity)) &&
        refuse({ identity: t.identity, ...i.requests.get(t)! }) === null,
    );
    // The naming is bound too: the same position means another tool under another naming.
    const { namespace, style } = projection.naming;
    const binding = fingerprint([
      "rukh.visibility/2",
      namespace,
      style,
      presetName,
      tools.map((t) => t.identity),
    ]);
    v = { tools, binding };
    i.visible.set(key, v);
  }
  return v;
}

/**
 * The tools a preset may see, in name order: what every page of
 * {@link listTools} together holds, without building any page. A tool is
 * seen only when the preset could run it: one of its command patterns
 * matches and it grants every action and resource the command requests (as
 * admission decides). Tools of a development link are left out unless
 * `devAllowed` names its extension.
 *
 * @example
 * const visible = new Set(visibleTools(projection, "agent").map((t) => t.name));
 */
export function visibleTools(
  projection: ToolProjection,
  preset: string,
  devAllowed: readonly string[] = [],
): readonly McpTool[] {
  return visibleFor(projection, preset, devAllowed).tools;
}

/** Options of {@link listTools}. */
export interface ListToolsOptions {
  /** The task preset whose visibility applies. */
  readonly preset: string;
  /** The development links this endpoint's owner named for it (see {@link visibleTools}). */
  readonly devAllowed?: readonly string[];
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
  /** The HMAC key for cursors (see `StateDirectory.cursorKey`). */
  readonly cursorKey: Uint8Array;
  /**
   * The largest answer a page travels in (an endpoint's
   * `limits.responseMaxBytes`; default the MCP default): a page then holds at
   * most that less `LIST_ANSWER_RESERVE_BYTES` of tools.
   */
  readonly responseMaxBytes?: number;
}

/** One page of tools. */
export interface ToolPage {
  readonly tools: readonly McpTool[];
  readonly nextCursor?: string;
}

const CURSOR = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;
const CURSOR_PAYLOAD = /^v1:([0-9a-f]{64}):([0-9a-f]{64}):(0|[1-9][0-9]{0,8})$/;

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac("sha256", key).update(payload).digest();
}

/**
 * Lists the tools a preset may see, in name order: at most
 * {@link PAGE_MAX_TOOLS} tools and {@link PAGE_MAX_BYTES} encoded bytes per
 * page, fewer bytes when `responseMaxBytes` is tighter (see
 * `listPageBytes`). Cursors are HMAC-protected and bound to the revision, the visibility
 * binding and the position; a tampered or malformed cursor fails with
 * `invalid_cursor`, one from another revision or binding with `stale_cursor`.
 * A tool the page cannot hold alone fails with `tool_too_large`, naming the
 * smallest response limit that would carry it (a publication refuses an
 * endpoint whose limit is that small).
 *
 * @example
 * let page = listTools(projection, { preset: "default", cursorKey });
 * while (page.nextCursor) page = listTools(projection, { preset: "default", cursorKey, cursor: page.nextCursor });
 */
export function listTools(projection: ToolProjection, options: ListToolsOptions): ToolPage {
  if (options.cursorKey.length < 16)
    throw new ProfileError("invalid_key", "cursor key must have at least 16 bytes");
  const { tools, binding } = visibleFor(projection, options.preset, options.devAllowed);
  let start = 0;
  if (options.cursor !== undefined) {
    const c = options.cursor;
    const m = c.length <= CURSOR_MAX_LENGTH ? CURSOR.exec(c) : null;
    if (m === null)
      throw new ProfileError(
        "invalid_cursor",
        "cursor is malformed; request the list again without a cursor",
      );
    const expected = mac(options.cursorKey, m[1]!);
    const given = Buffer.from(m[2]!, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new ProfileError(
        "invalid_cursor",
        "cursor failed its integrity check; request the list again without a cursor",
      );
    const p = CURSOR_PAYLOAD.exec(Buffer.from(m[1]!, "base64url").toString("utf8"));
    if (p === null) throw new ProfileError("invalid_cursor", "cursor payload is malformed");
    if (p[1] !== projection.revisionId || p[2] !== binding)
      throw new ProfileError(
        "stale_cursor",
        "cursor belongs to another profile revision or visibility; request the list again without a cursor",
      );
    start = Number(p[3]);
    if (start > tools.length)
      throw new ProfileError("invalid_cursor", "cursor position is out of range");
  }
  const end = pageEnd(projection, tools, start, options.responseMaxBytes);
  const page = tools.slice(start, end);
  if (end >= tools.length) return { tools: page };
  const payload = Buffer.from(`v1:${projection.revisionId}:${binding}:${end}`).toString(
    "base64url",
  );
  return {
    tools: page,
    nextCursor: `${payload}.${mac(options.cursorKey, payload).toString("base64url")}`,
  };
}

/**
 * Where the page that starts at `start` ends: after {@link PAGE_MAX_TOOLS}
 * tools or before the first that would pass the page's bytes, each tool
 * with room for the annotations a preset gives it; throws `tool_too_large`
 * when not even the first fits.
 */
function pageEnd(
  projection: ToolProjection,
  tools: readonly McpTool[],
  start: number,
  responseMaxBytes = MCP_TRANSPORT_LIMITS.responseMaxBytes,
): number {
  const sizes = inner(projection).bytes;
  const max = listPageBytes(responseMaxBytes);
  let end = start;
  let used = 2;
  while (end < tools.length && end - start < PAGE_MAX_TOOLS) {
    const tool = tools[end]!;
    let size = sizes.get(tool);
    if (size === undefined) {
      size = checkedSize(tool);
      sizes.set(tool, size);
    }
    // Room for the annotations the preset gives the tool, whatever they are.
    const room = size + ANNOTATIONS_MAX_BYTES;
    if (used + room > max) {
      if (end === start)
        throw new ProfileError(
          "tool_too_large",
          `a tools/list answer of at most ${responseMaxBytes} bytes cannot carry the tool ${tool.identity} (${room} bytes); it needs at least ${listAnswerBytes(room)}`,
        );
      break;
    }
    used += room;
    end++;
  }
  return end;
}
