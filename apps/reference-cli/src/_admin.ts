// The brand's administrative commands: extensions, trust, exposure, presets
// and profile revisions, each a publication through `@rukh/profile`.

import { basename } from "node:path";
import type { BuiltinContext, CliBuiltin } from "@rukh/cli";
import {
  CONFIG_MAX_BYTES,
  type OwnerConfig,
  type StateDirectory,
  type TaskPreset,
} from "@rukh/profile";
import { catalogBuiltins } from "./_catalog.js";
import { doctorBuiltin } from "./_doctor.js";
import { guard, OK, parse, plural, print, readBounded, UsageError } from "./_kit.js";
import { mcpBuiltins } from "./_mcp-commands.js";
import { runsBuiltins } from "./_runs-commands.js";

/** What the administrative commands need to know about the brand. */
export interface AdminOptions {
  readonly brand: string;
  /** Absolute path of the brand's executable, for client configuration snippets. */
  readonly executable: string;
  /** Runs the stdio MCP server until its input ends; returns the exit code. */
  readonly serveMcp: (context: BuiltinContext, preset: string | undefined) => Promise<number>;
}

/** A public key file holds 44 base64 characters and a newline; anything much larger is not one. */
const PUBLIC_KEY_MAX_BYTES = 1_024;

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
  const guarded = guard(brand);

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
      path: ["profile", "history"],
      summary: "List published profile revisions, newest first",
      run: guarded(async (ctx, home) => {
        parse(ctx.args);
        const active = await home.activeRevisionId();
        const history = await home.history();
        const lines = history.map(
          ({ id, revision }) =>
            `${id === active ? "*" : " "} ${id.slice(0, 12)}  #${revision.sequence}  ${revision.createdAt}  ${plural(revision.extensions.length, "extension")}`,
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
    ...runsBuiltins(guarded),
    ...catalogBuiltins(brand, guarded),
    ...mcpBuiltins(options, guarded),
    doctorBuiltin(guarded),
  ];
}
