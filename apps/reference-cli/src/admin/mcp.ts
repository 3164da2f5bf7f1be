// `mcp serve`, `mcp config` and `mcp install`: the stdio server, what a
// client needs to start it, and writing that into the client's own file.

import { resolve } from "node:path";
import type { BuiltinContext, CliBuiltin } from "@rukh/cli";
import type { StateDirectory } from "@rukh/profile";
import { candidates } from "./_current.js";
import { bool, flag, oneOf, text } from "./_inputs.js";
import { type AdminBody, OK, type Profile, print, STATE, USAGE, UsageError } from "./_kit.js";
import {
  clientConfig,
  MCP_CLIENTS,
  type McpClient,
  nameLimit,
  type ServerLaunch,
} from "./_mcp-clients.js";
import {
  clientFile,
  lineDiff,
  mergedConfig,
  readConfigFile,
  writeConfigFile,
} from "./_mcp-install.js";
import type { AdminOptions } from "./index.js";

const PRESET = flag("preset", "The task preset the server binds (default: agent)", {
  maxLength: 64,
});

/** The `mcp` commands. */
export function mcpBuiltins(
  options: AdminOptions,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  const { brand } = options;
  /** The client and preset asked for, checked against the profile, and how the server starts. */
  async function prepare(ctx: BuiltinContext, home: StateDirectory, profile: Profile) {
    const preset = text(ctx.inputs, "preset") ?? "agent";
    const client = text(ctx.inputs, "client") as McpClient;
    const notes = await checkFit(home, profile, client, brand, preset);
    const launch: ServerLaunch = {
      name: brand,
      command: options.executable,
      args: ["mcp", "serve", "--preset", preset],
      // The client starts the server from a directory of its own: the path must be absolute.
      env: { RUKH_HOME: resolve(ctx.stateDir) },
    };
    return { client, preset, notes, launch };
  }
  return [
    {
      path: ["mcp", "serve"],
      summary: "Serve the active profile's tools over MCP on stdio (stdout carries protocol only)",
      inputs: [PRESET],
      suggest: (_id, stateDir) => candidates(stateDir, "presets"),
      run: async (ctx) => {
        try {
          return await options.serveMcp(ctx, text(ctx.inputs, "preset"));
        } catch (e) {
          ctx.stderr.write(`${brand}: ${(e as Error).message}\n`);
          return e instanceof UsageError ? USAGE : STATE;
        }
      },
    },
    {
      path: ["mcp", "config"],
      summary:
        "Print what an MCP client needs to start this server: a command to run or its configuration file's content",
      inputs: [oneOf("client", "The MCP client", MCP_CLIENTS, { required: true }), PRESET],
      suggest: (_id, stateDir) => candidates(stateDir, "presets"),
      run: guarded(async (ctx, home, profile) => {
        const { client, preset, notes, launch } = await prepare(ctx, home, profile);
        const snippet = clientConfig(client, launch);
        for (const n of notes) ctx.stderr.write(`${brand}: ${n}\n`);
        print(ctx, snippet, { client, preset, snippet });
        return OK;
      }),
    },
    {
      path: ["mcp", "install"],
      summary:
        "Add this server to an MCP client's configuration file: merged in, the old file kept as a backup",
      inputs: [
        oneOf("client", "The MCP client", FILE_CLIENTS, { required: true }),
        PRESET,
        flag("file", "The configuration file (default: where the client keeps it)", {
          maxLength: 4096,
        }),
        bool("dry_run", "Show the change as a line diff and write nothing"),
      ],
      suggest: (_id, stateDir) => candidates(stateDir, "presets"),
      run: guarded(async (ctx, home, profile) => {
        const { client, notes, launch } = await prepare(ctx, home, profile);
        const file = resolve(
          text(ctx.inputs, "file") ?? clientFile(client, ctx.env, process.cwd()),
        );
        const before = readConfigFile(file);
        const after = mergedConfig(client, file, before, launch);
        for (const n of notes) ctx.stderr.write(`${brand}: ${n}\n`);
        const dryRun = ctx.inputs.dry_run === true;
        if (!after.changed) {
          print(ctx, `${file} already starts this server; nothing written`, {
            client,
            file,
            changed: false,
          });
          return OK;
        }
        if (dryRun) {
          const diff = lineDiff(file, before ?? "", after.text);
          print(ctx, `${diff}\n(dry run: nothing written)`, { client, file, changed: true, diff });
          return OK;
        }
        const backup = writeConfigFile(file, after.text, before !== undefined);
        print(
          ctx,
          `added ${brand} to ${file}${backup === undefined ? "" : `; the previous file is ${backup}`}; restart ${client} to load it`,
          { client, file, changed: true, ...(backup !== undefined && { backup }) },
        );
        return OK;
      }),
    },
  ];
}

/** The clients whose configuration is a file `mcp install` can write. */
const FILE_CLIENTS = MCP_CLIENTS.filter((c) => c !== "inspector");

/**
 * Checks the preset against the active profile and the preset's tool names
 * against the client's limit (with its prefix); returns notes for stderr.
 */
async function checkFit(
  home: StateDirectory,
  profile: Profile,
  client: McpClient,
  server: string,
  preset: string,
): Promise<string[]> {
  if ((await home.activeRevisionId()) === null)
    return [
      `nothing is installed yet: the preset and the tool names are checked against ${client}'s limits once there is a profile; run this again after installing`,
    ];
  const projection = await home.projection();
  if (profile.presetNamed(projection.config, preset) === undefined)
    throw new UsageError(
      `no preset ${JSON.stringify(preset)}; expected one of ${Object.keys(projection.config.presets).join(", ")}`,
    );
  const limit = nameLimit(client, server);
  if (limit === null) return [];
  const longest = profile
    .visibleTools(projection, preset)
    .reduce((a, t) => (t.name.length > a.length ? t.name : a), "");
  if (limit.prefix.length + longest.length <= limit.max) return [];
  const compact = projection.config.mcp?.toolNames === "compact";
  throw new UsageError(
    `${client} accepts tool names of at most ${limit.max} characters with its prefix ("${limit.prefix}"), and ${longest} has ${longest.length}; ${
      compact
        ? "even compact names do not fit: choose a shorter brand"
        : 'publish compact names (set "mcp": { "toolNames": "compact" } in the owner configuration and run `profile set-config`)'
    }`,
  );
}
