import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  statfsSync,
} from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import type { BuiltinContext, CliBuiltin } from "@rukh/cli";
import {
  CONFIG_MAX_BYTES,
  cliRoutes,
  listTools,
  type McpTool,
  type OwnerConfig,
  ProfileError,
  StateDirectory,
  type TaskPreset,
} from "@rukh/profile";

/** What the administrative commands need to know about the brand. */
export interface AdminOptions {
  readonly brand: string;
  /** Absolute path of the brand's executable, for client configuration snippets. */
  readonly executable: string;
  /** Runs the stdio MCP server until its input ends; returns the exit code. */
  readonly serveMcp: (context: BuiltinContext, preset: string | undefined) => Promise<number>;
}

/** Exit codes of administrative commands (the same table as extension commands, docs/cli.md). */
const OK = 0;
const USAGE = 2;
const REFUSED = 4;
const STATE = 5;

class UsageError extends Error {}

/** A public key file holds 44 base64 characters and a newline; anything much larger is not one. */
const PUBLIC_KEY_MAX_BYTES = 1_024;

// Reads a file the owner named, refusing it before reading if it is larger
// than what it can possibly be.
function readBounded(path: string, max: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > max) throw new UsageError(`${path} is ${size} bytes; expected at most ${max}`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A configuration a new owner starts from: nothing trusted, nothing exposed. */
export function initialConfig(brand: string): OwnerConfig {
  const preset = (
    enforcement: TaskPreset["enforcement"],
    deadlineMs: number,
    maxConcurrency: number,
  ): TaskPreset => ({
    commands: [],
    actions: [],
    resources: [],
    deadlineMs,
    maxConcurrency,
    enforcement,
  });
  return {
    brand,
    endpointNamespace: `${brand}-local`,
    trustedPublishers: [],
    exposure: { commands: [], extensions: [] },
    // The person at the terminal runs as the owner; agents get the confined preset.
    presets: { default: preset("host-trusted", 60_000, 4), agent: preset("strict", 30_000, 2) },
    defaultPreset: "default",
  };
}

async function currentConfig(home: StateDirectory, brand: string): Promise<OwnerConfig> {
  const id = await home.activeRevisionId();
  return id === null ? initialConfig(brand) : (await home.readRevision(id)).config;
}

type Options = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
interface Parsed {
  readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  readonly positionals: string[];
}

function parse(args: readonly string[], options: Options = {}, positionals = 0): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (positionals >= 0 && parsed.positionals.length !== positionals) {
    throw new UsageError(
      `expected ${positionals} argument${positionals === 1 ? "" : "s"}, got ${parsed.positionals.length}`,
    );
  }
  return parsed;
}

function print(ctx: BuiltinContext, human: string, data: unknown): void {
  ctx.stdout.write(
    ctx.json ? `${JSON.stringify(data)}\n` : human.endsWith("\n") ? human : `${human}\n`,
  );
}

/** Text from the journal, printed with control characters made visible: it never steers the terminal. */
function safe(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/;

/** The `runs list` flags as a filter, each checked against what it may be. */
function runFilter(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  core: typeof import("@rukh/core"),
): import("@rukh/core").RunFilter {
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const oneOf = <T extends string>(k: string, allowed: readonly T[]): T | undefined => {
    const v = str(k);
    if (v !== undefined && !allowed.includes(v as T))
      throw new UsageError(`--${k} ${JSON.stringify(v)}: expected one of ${allowed.join(", ")}`);
    return v as T | undefined;
  };
  const limit = str("limit");
  if (limit !== undefined && !/^[1-9][0-9]{0,4}$/.test(limit))
    throw new UsageError(`--limit ${JSON.stringify(limit)}: expected 1 to ${core.RUNS_MAX_LIMIT}`);
  for (const k of ["since", "until"])
    if (str(k) !== undefined && !ISO_TIME.test(str(k)!))
      throw new UsageError(
        `--${k} ${JSON.stringify(str(k))}: expected an ISO 8601 time such as 2026-12-01T10:00:00Z`,
      );
  const surface = oneOf("surface", ["cli", "mcp"] as const);
  const outcome = oneOf("outcome", core.OUTCOME_KINDS);
  const reason = oneOf("reason", Object.values(core.OUTCOME_REASONS).flat());
  return {
    ...(limit !== undefined && { limit: Math.min(Number(limit), core.RUNS_MAX_LIMIT) }),
    ...(surface !== undefined && { surface }),
    ...(outcome !== undefined && { outcome }),
    ...(reason !== undefined && { reason }),
    ...(str("command") !== undefined && { command: str("command")! }),
    ...(str("preset") !== undefined && { preset: str("preset")! }),
    ...(str("since") !== undefined && { since: str("since")! }),
    ...(str("until") !== undefined && { until: str("until")! }),
  };
}

function uniq<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

function withPreset(
  config: OwnerConfig,
  name: string,
  change: (p: TaskPreset) => TaskPreset,
): OwnerConfig {
  const preset = config.presets[name];
  if (preset === undefined)
    throw new UsageError(
      `no preset ${JSON.stringify(name)}; expected one of ${Object.keys(config.presets).join(", ")}`,
    );
  return { ...config, presets: { ...config.presets, [name]: change(preset) } };
}

/**
 * The brand's administrative commands. They change the profile only through
 * `@rukh/profile` publications and are built-ins of the CLI: never MCP tools.
 */
export function adminBuiltins(options: AdminOptions): CliBuiltin[] {
  const { brand } = options;
  const guarded =
    (fn: (ctx: BuiltinContext, home: StateDirectory) => Promise<number> | number) =>
    async (ctx: BuiltinContext): Promise<number> => {
      try {
        return await fn(ctx, new StateDirectory(ctx.stateDir));
      } catch (e) {
        if (e instanceof UsageError) {
          ctx.stderr.write(`${brand}: ${e.message}\n`);
          return USAGE;
        }
        if (e instanceof ProfileError) {
          ctx.stderr.write(`${brand}: ${e.code}: ${e.message}\n`);
          for (const i of e.issues) ctx.stderr.write(`  ${i.path || "/"}: ${i.message}\n`);
          return REFUSED;
        }
        ctx.stderr.write(`${brand}: ${(e as Error).message}\n`);
        return STATE;
      }
    };

  const publish = async (
    ctx: BuiltinContext,
    home: StateDirectory,
    config: OwnerConfig,
    what: string,
  ) => {
    const p = await home.setConfig(config);
    const said = p.published ? what : "nothing changed";
    print(ctx, `${said}; profile revision ${p.revisionId.slice(0, 12)}`, {
      revisionId: p.revisionId,
      published: p.published,
    });
    return OK;
  };

  return [
    {
      path: ["ext", "install"],
      summary: "Install (or upgrade) a signed extension package and allow it in the default preset",
      usage: "<package directory or .tgz>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const before = await home.activeRevisionId();
        const defaultPreset =
          before === null
            ? initialConfig(brand).defaultPreset
            : (await home.readRevision(before)).config.defaultPreset;
        // One publication: the first configuration (if any), the package, and
        // its pattern in the default preset when it is new.
        const p = await home.apply([
          ...(before === null ? [{ op: "setConfig" as const, config: initialConfig(brand) }] : []),
          { op: "install", source: positionals[0]!, allowIn: defaultPreset },
        ]);
        if (!p.published) {
          const text = `already installed, nothing changed; profile revision ${p.revisionId.slice(0, 12)}`;
          print(ctx, text, { revisionId: p.revisionId, installed: [] });
          return OK;
        }
        const installed = p.revision.extensions.map((e) => e.id);
        const prior =
          before === null ? [] : (await home.readRevision(before)).extensions.map((e) => e.id);
        const added = installed.filter((id) => !prior.includes(id));
        const revisionId = p.revisionId;
        const ext = p.revision.extensions.filter(
          (e) => added.includes(e.id) || !prior.includes(e.id),
        );
        print(
          ctx,
          `installed ${ext.map((e) => `${e.id}@${e.version}`).join(", ") || "nothing new (same package)"}; profile revision ${revisionId.slice(0, 12)}`,
          { revisionId, installed: ext },
        );
        return OK;
      }),
    },
    ...(["remove", "enable", "disable"] as const).map(
      (op): CliBuiltin => ({
        path: ["ext", op],
        summary: `${op[0]!.toUpperCase()}${op.slice(1)} an installed extension`,
        usage: "<extension id>",
        run: guarded(async (ctx, home) => {
          const { positionals } = parse(ctx.args, {}, 1);
          const p = await home[op](positionals[0]!);
          print(ctx, `${op}d ${positionals[0]}; profile revision ${p.revisionId.slice(0, 12)}`, {
            revisionId: p.revisionId,
          });
          return OK;
        }),
      }),
    ),
    {
      path: ["ext", "list"],
      summary: "List installed extensions",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const id = await home.activeRevisionId();
        const exts = id === null ? [] : (await home.readRevision(id)).extensions;
        const lines = exts.map(
          (e) =>
            `${e.id}@${e.version}  ${e.publisher}  ${e.enabled ? "enabled" : "disabled"}  ${e.digest.slice(0, 12)}`,
        );
        print(ctx, lines.length ? lines.join("\n") : "no extensions installed", exts);
        return OK;
      }),
    },
    {
      path: ["trust", "add"],
      summary: "Trust a publisher's Ed25519 public key (base64 of its 32 raw bytes)",
      usage: "<public key file> [--publisher <id>]",
      run: guarded(async (ctx, home) => {
        const { positionals, values } = parse(ctx.args, { publisher: { type: "string" } }, 1);
        const file = positionals[0]!;
        const publicKey = readBounded(file, PUBLIC_KEY_MAX_BYTES).toString("utf8").trim();
        const id = (values.publisher as string | undefined) ?? basename(file).replace(/\.pub$/, "");
        const config = await currentConfig(home, brand);
        const others = config.trustedPublishers.filter((p) => p.id !== id);
        return publish(
          ctx,
          home,
          { ...config, trustedPublishers: [...others, { id, publicKey }] },
          `trusted publisher ${id}`,
        );
      }),
    },
    {
      path: ["trust", "remove"],
      summary: "Stop trusting a publisher (its extensions must be removed first)",
      usage: "<publisher id>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const config = await currentConfig(home, brand);
        const kept = config.trustedPublishers.filter((p) => p.id !== positionals[0]);
        if (kept.length === config.trustedPublishers.length)
          throw new UsageError(`publisher ${positionals[0]} is not trusted`);
        return publish(
          ctx,
          home,
          { ...config, trustedPublishers: kept },
          `removed publisher ${positionals[0]}`,
        );
      }),
    },
    {
      path: ["trust", "list"],
      summary: "List trusted publishers",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const { trustedPublishers } = await currentConfig(home, brand);
        print(
          ctx,
          trustedPublishers.map((p) => `${p.id}  ${p.publicKey}`).join("\n") ||
            "no trusted publishers",
          trustedPublishers,
        );
        return OK;
      }),
    },
    {
      path: ["expose", "add"],
      summary: "Let MCP see an extension or one command (presets still decide who may call it)",
      usage: "<extension id | extension id/command id>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const target = positionals[0]!;
        const config = await currentConfig(home, brand);
        const key = target.includes("/") ? "commands" : "extensions";
        const exposure = {
          ...config.exposure,
          [key]: uniq([...(config.exposure?.[key] ?? []), target]),
        };
        return publish(ctx, home, { ...config, exposure }, `exposed ${target}`);
      }),
    },
    {
      path: ["expose", "remove"],
      summary: "Hide an extension or command from MCP again",
      usage: "<extension id | extension id/command id>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const target = positionals[0]!;
        const config = await currentConfig(home, brand);
        const exposure = {
          commands: (config.exposure?.commands ?? []).filter((c) => c !== target),
          extensions: (config.exposure?.extensions ?? []).filter((c) => c !== target),
        };
        return publish(ctx, home, { ...config, exposure }, `hid ${target}`);
      }),
    },
    {
      path: ["preset", "list"],
      summary: "List task presets",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const config = await currentConfig(home, brand);
        const lines = Object.entries(config.presets).map(
          ([name, p]) =>
            `${name}${name === config.defaultPreset ? " (default)" : ""}  ${p.enforcement}  deadline ${p.deadlineMs} ms  concurrency ${p.maxConcurrency}  ${p.commands.length} command patterns`,
        );
        print(ctx, lines.join("\n"), config.presets);
        return OK;
      }),
    },
    {
      path: ["preset", "show"],
      summary: "Show one task preset",
      usage: "<preset>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const config = await currentConfig(home, brand);
        const preset = config.presets[positionals[0]!];
        if (preset === undefined)
          throw new UsageError(
            `no preset ${JSON.stringify(positionals[0])}; expected one of ${Object.keys(config.presets).join(", ")}`,
          );
        print(ctx, JSON.stringify(preset, null, 2), preset);
        return OK;
      }),
    },
    ...(["allow", "deny"] as const).map(
      (op): CliBuiltin => ({
        path: ["preset", op],
        summary:
          op === "allow"
            ? "Allow a preset a command (<ext>/<cmd>) or extension (<ext>/*), and the actions/resources commands request"
            : "Take a command pattern, action or resource away from a preset",
        usage: "<preset> [<pattern>] [--action <name>]… [--resource <name>]…",
        run: guarded(async (ctx, home) => {
          const { positionals, values } = parse(
            ctx.args,
            {
              action: { type: "string", multiple: true },
              resource: { type: "string", multiple: true },
            },
            -1,
          );
          const [name, pattern, ...rest] = positionals as [string, string | undefined, ...string[]];
          if (name === undefined || rest.length > 0)
            throw new UsageError("expected a preset name and at most one command pattern");
          const pick = (key: "action" | "resource") => (values[key] as string[] | undefined) ?? [];
          const edit = (list: readonly string[], items: readonly string[]) =>
            op === "allow" ? uniq([...list, ...items]) : list.filter((x) => !items.includes(x));
          const config = withPreset(await currentConfig(home, brand), name, (p) => ({
            ...p,
            commands: edit(p.commands, pattern === undefined ? [] : [pattern]),
            actions: edit(p.actions, pick("action")),
            resources: edit(p.resources, pick("resource")),
          }));
          return publish(ctx, home, config, `updated preset ${name}`);
        }),
      }),
    ),
    {
      path: ["profile", "show"],
      summary: "Show the active profile revision and its owner configuration",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const id = await home.activeRevisionId();
        if (id === null) {
          print(ctx, "no profile published yet", null);
          return OK;
        }
        const rev = await home.readRevision(id);
        print(
          ctx,
          `revision ${id}\nsequence ${rev.sequence}, command generation ${rev.commandGeneration}, created ${rev.createdAt}\n${JSON.stringify(rev.config, null, 2)}`,
          { id, ...rev },
        );
        return OK;
      }),
    },
    {
      path: ["runs", "list"],
      summary:
        "List invocations from the journal, newest first: who ran what, when, and how it ended",
      usage:
        "[--limit N] [--surface cli|mcp] [--outcome O] [--reason R] [--command ID] [--preset P] [--since ISO] [--until ISO]",
      run: guarded(async (ctx, home) => {
        const { values } = parse(ctx.args, {
          limit: { type: "string" },
          surface: { type: "string" },
          outcome: { type: "string" },
          reason: { type: "string" },
          command: { type: "string" },
          preset: { type: "string" },
          since: { type: "string" },
          until: { type: "string" },
        });
        const core = await import("@rukh/core");
        const filter = runFilter(values, core);
        const runs = await core.listRuns(home.root, filter);
        const lines = runs.map(
          (r) =>
            `${r.invocationId}  ${r.startedAt ?? r.endedAt ?? "?"}  ${r.surface ?? "-"}  ${safe(r.command ?? "-")}  ${r.outcome === undefined ? "running or lost" : `${r.outcome}/${r.reason}`}${r.durationMs === undefined ? "" : `  ${r.durationMs} ms`}  ${safe(r.actor ?? "")}`,
        );
        print(ctx, lines.join("\n") || "no invocations", { format: "rukh.runs/1", runs });
        return OK;
      }),
    },
    {
      path: ["runs", "show"],
      summary: "Show one invocation from the journal",
      usage: "<invocation id>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const { findRun } = await import("@rukh/core");
        const run = await findRun(home.root, positionals[0]!);
        if (run === undefined)
          throw new UsageError(`no invocation ${JSON.stringify(positionals[0])} in the journal`);
        const human = Object.entries(run)
          .map(([k, v]) => `${k}: ${safe(String(v))}`)
          .join("\n");
        print(ctx, human, { format: "rukh.runs/1", run });
        return OK;
      }),
    },
    {
      path: ["profile", "history"],
      summary: "List published profile revisions, newest first",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const active = await home.activeRevisionId();
        const history = await home.history();
        const lines = history.map(
          ({ id, revision }) =>
            `${id === active ? "*" : " "} ${id.slice(0, 12)}  #${revision.sequence}  ${revision.createdAt}  ${revision.extensions.length} extensions`,
        );
        print(
          ctx,
          lines.join("\n") || "no revisions",
          history.map(({ id, revision }) => ({
            id,
            sequence: revision.sequence,
            createdAt: revision.createdAt,
          })),
        );
        return OK;
      }),
    },
    {
      path: ["profile", "rollback"],
      summary: "Publish an earlier revision's state as a new revision",
      usage: "<revision id or unique prefix>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const matches = (await home.history()).filter(({ id }) => id.startsWith(positionals[0]!));
        if (matches.length !== 1)
          throw new UsageError(
            `${matches.length} revisions match ${JSON.stringify(positionals[0])}; expected exactly one`,
          );
        const p = await home.rollback(matches[0]!.id);
        print(
          ctx,
          `rolled back to ${matches[0]!.id.slice(0, 12)}; new revision ${p.revisionId.slice(0, 12)}`,
          { revisionId: p.revisionId },
        );
        return OK;
      }),
    },
    {
      path: ["profile", "set-config"],
      summary: "Publish an owner configuration file (strict JSON)",
      usage: "<owner configuration file>",
      run: guarded(async (ctx, home) => {
        const { positionals } = parse(ctx.args, {}, 1);
        const p = await home.setConfig(readBounded(positionals[0]!, CONFIG_MAX_BYTES));
        print(ctx, `published configuration; profile revision ${p.revisionId.slice(0, 12)}`, {
          revisionId: p.revisionId,
        });
        return OK;
      }),
    },
    {
      path: ["tools", "list"],
      summary:
        "Show the exact MCP tool list of a preset (names, schemas, pages) without starting any extension",
      usage: "[--preset <name>]",
      run: guarded(async (ctx, home) => {
        const { values } = parse(ctx.args, { preset: { type: "string" } });
        const { tools, pages, preset } = await allTools(home, values.preset as string | undefined);
        const human = tools.map((t) => `${t.name}\n  ${t.title}  (${t.identity})`).join("\n");
        print(
          ctx,
          `${human || "no tools"}\n${tools.length} tools in ${pages} page${pages === 1 ? "" : "s"} for preset ${preset}`,
          { preset, pages, tools },
        );
        return OK;
      }),
    },
    {
      path: ["mcp", "serve"],
      summary: "Serve the active profile's tools over MCP on stdio (stdout carries protocol only)",
      usage: "[--preset <name>]",
      run: async (ctx) => {
        try {
          const { values } = parse(ctx.args, { preset: { type: "string" } });
          return await options.serveMcp(ctx, values.preset as string | undefined);
        } catch (e) {
          ctx.stderr.write(`${brand}: ${(e as Error).message}\n`);
          return e instanceof UsageError ? USAGE : STATE;
        }
      },
    },
    {
      path: ["mcp", "config"],
      summary: "Print the configuration snippet an MCP client needs to start this server",
      usage: "--client <claude-code|claude-desktop|vscode|inspector> [--preset <name>]",
      run: guarded((ctx) => {
        const { values } = parse(ctx.args, {
          client: { type: "string" },
          preset: { type: "string" },
        });
        const preset = (values.preset as string | undefined) ?? "agent";
        print(
          ctx,
          clientConfig(values.client as string | undefined, options, ctx.stateDir, preset),
          null,
        );
        return OK;
      }),
    },
    {
      path: ["docs"],
      summary: "Print a Markdown reference of every command and tool of the active profile",
      usage: "[--preset <name>]",
      run: guarded(async (ctx, home) => {
        const { values } = parse(ctx.args, { preset: { type: "string" } });
        ctx.stdout.write(await markdown(home, brand, values.preset as string | undefined));
        return OK;
      }),
    },
    {
      path: ["doctor"],
      summary: "Check the state directory, trust, installed packages and enforcement support",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const checks = await doctor(home);
        print(ctx, checks.map((c) => `${mark(c)}  ${c.name}: ${c.detail}`).join("\n"), checks);
        return checks.every((c) => c.ok) ? OK : STATE;
      }),
    },
  ];
}

async function allTools(home: StateDirectory, preset: string | undefined) {
  const projection = await home.projection();
  const name = preset ?? projection.config.defaultPreset;
  if (projection.config.presets[name] === undefined)
    throw new UsageError(`no preset ${JSON.stringify(name)}`);
  const cursorKey = await home.cursorKey();
  const tools: McpTool[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = listTools(projection, {
      preset: name,
      cursorKey,
      ...(cursor !== undefined && { cursor }),
    });
    tools.push(...page.tools);
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { tools, pages, preset: name };
}

function clientConfig(
  client: string | undefined,
  options: AdminOptions,
  stateDir: string,
  preset: string,
): string {
  const server = {
    command: options.executable,
    args: ["mcp", "serve", "--preset", preset],
    env: { RUKH_HOME: stateDir },
  };
  switch (client) {
    case "claude-desktop":
      return JSON.stringify({ mcpServers: { [options.brand]: server } }, null, 2);
    case "claude-code":
      return `claude mcp add ${options.brand} --env RUKH_HOME=${stateDir} -- ${options.executable} mcp serve --preset ${preset}`;
    case "vscode":
      return JSON.stringify(
        { servers: { [options.brand]: { type: "stdio", ...server } } },
        null,
        2,
      );
    case "inspector":
      return `npx -y @modelcontextprotocol/inspector --cli -e RUKH_HOME=${stateDir} ${options.executable} mcp serve --preset ${preset} --method tools/list`;
    default:
      throw new UsageError(
        `--client ${JSON.stringify(client ?? "")}; expected claude-code, claude-desktop, vscode or inspector`,
      );
  }
}

async function markdown(
  home: StateDirectory,
  brand: string,
  preset: string | undefined,
): Promise<string> {
  const projection = await home.projection();
  const routes = cliRoutes(projection);
  const out = [
    `# ${brand} command reference`,
    "",
    `Profile revision \`${projection.revisionId}\`.`,
    "",
    "## Commands",
    "",
  ];
  for (const r of routes.commands) {
    out.push(`### \`${brand} ${r.path.join(" ")}\``, "", r.cli.summary, "");
    if (r.cli.description) out.push(r.cli.description, "");
    if (r.aliases.length)
      out.push(`Aliases: ${r.aliases.map((a) => `\`${brand} ${a.join(" ")}\``).join(", ")}`, "");
    const params = [...r.cli.positionals, ...r.cli.flags];
    if (params.length) {
      out.push(
        "| parameter | MCP property | type | required | default | summary |",
        "|---|---|---|---|---|---|",
      );
      for (const p of params) {
        const spelled =
          p.flag !== undefined
            ? `\`--${p.flag}\`${p.short ? ` / \`-${p.short}\`` : ""}`
            : `\`<${p.id}>\``;
        out.push(
          `| ${spelled} | \`${p.id}\` | ${p.list ? `list of ${p.valueType}` : p.valueType} | ${p.required ? "yes" : "no"} | ${p.default === undefined ? "" : `\`${JSON.stringify(p.default)}\``} | ${p.summary} |`,
        );
      }
      out.push("");
    }
  }
  const { tools, preset: name } = await allTools(home, preset);
  out.push(`## MCP tools (preset \`${name}\`)`, "");
  if (tools.length === 0) out.push("No tools are visible to this preset.", "");
  for (const t of tools)
    out.push(
      `### ${t.title}`,
      "",
      `Name: \`${t.name}\` (command \`${t.identity}\`)`,
      "",
      t.description,
      "",
    );
  return `${out.join("\n")}\n`;
}

// Unavailable confinement is a note, not a failure: strict calls are then rejected, never run unconfined.
function mark(c: { ok: boolean; detail: string }): string {
  if (!c.ok) return "FAIL";
  return c.detail.startsWith("unavailable") ? "note" : "ok  ";
}

async function doctor(
  home: StateDirectory,
): Promise<{ name: string; ok: boolean; detail: string }[]> {
  const checks: { name: string; ok: boolean; detail: string }[] = [];
  const check = async (name: string, fn: () => Promise<string> | string) => {
    try {
      checks.push({ name, ok: true, detail: await fn() });
    } catch (e) {
      checks.push({ name, ok: false, detail: (e as Error).message });
    }
  };
  await check("state directory", () => {
    accessSync(home.root, constants.W_OK);
    return home.root;
  });
  await check("active profile", async () => {
    const id = await home.activeRevisionId();
    if (id === null) throw new Error("nothing published yet (run `trust add` and `ext install`)");
    const rev = await home.readRevision(id);
    return `${id.slice(0, 12)}, ${rev.extensions.length} extensions, ${rev.config.trustedPublishers.length} trusted publishers`;
  });
  await check("installed packages", async () => {
    if ((await home.activeRevisionId()) === null) return "none";
    const projection = await home.projection();
    return `verified against their digests; ${projection.routes.commands.length} commands, ${projection.tools.length} MCP tools`;
  });
  await check("free space", () => {
    const { bavail, bsize } = statfsSync(home.root);
    const free = bavail * bsize;
    // Below this, journal records and diagnostics start to be refused.
    if (free < 16 * 1024 * 1024)
      throw new Error(
        `only ${free} bytes free under ${home.root}: calls will end journal_failed and diagnostics will be dropped`,
      );
    return `${Math.floor(free / 1024 / 1024)} MiB free`;
  });
  const { describeJournal, describeConfinement } = await import("@rukh/core");
  await check("journal", async () => {
    const j = await describeJournal(home.root);
    const history = `${j.archiveSegments} archive segments (${Math.ceil(j.archiveBytes / 1024)} KiB), ${j.liveSegments} live`;
    if (j.quarantined.length > 0)
      throw new Error(
        `${history}; ${j.quarantined.length} damaged segments were set aside in ${j.quarantineDir} (${j.quarantined.join(", ")}): their readable records were recovered; keep or delete them`,
      );
    return history;
  });
  // The same detection the core admits calls with: what doctor says is what a call gets.
  const active = await home.activeRevisionId().catch(() => null);
  const configured =
    active === null ? undefined : (await home.readRevision(active)).config.sandbox?.program;
  const c = await describeConfinement(configured);
  // Unavailable confinement is not a fault: strict calls are then rejected, never run unconfined.
  await check("strict profile", () =>
    c.strict.available
      ? `available: ${c.strict.detail}`
      : `unavailable, strict commands will be rejected: ${c.strict.reason}`,
  );
  await check(
    "host-trusted process trees",
    () => `${c.hostTrustedTree.mechanism}: ${c.hostTrustedTree.detail}`,
  );
  await check("resource limits", () =>
    c.resourceLimits.enforced
      ? c.resourceLimits.detail
      : `not enforced for host-trusted commands: ${c.resourceLimits.reason}`,
  );
  return checks;
}
