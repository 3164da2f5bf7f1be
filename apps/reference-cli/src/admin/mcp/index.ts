// The mcp group: `mcp serve`, `mcp config` and `mcp install`. Steps of a
// server: launchEndpoint (the endpoint it starts as, read once from the
// owner configuration) → announcePlaces (where a read-only state directory
// writes) → serveMcp (stdio) or serveMcpHttp (HTTP, with its authenticator),
// each handing the endpoint whole to @rukh/mcp. Steps of a client: endpointFor
// (the endpoint it starts, created when none fits) → clientConfig (what it
// runs) → mergedConfig and writeConfigFile (into its own file, a backup kept).

import { resolve } from "node:path";
import type { BuiltinContext, CliBuiltin } from "@rukh/cli";
import type { StateDirectory } from "@rukh/profile";
import { stateDirVariable } from "@rukh/profile/route-cache";
import {
  type AdminBody,
  type AdminOptions,
  bool,
  candidates,
  flag,
  note,
  OK,
  oneOf,
  type Profile,
  print,
  text,
  UsageError,
} from "../kit/index.js";
import { clientConfig, MCP_CLIENTS, type McpClient, type ServerLaunch } from "./_clients.js";
import { endpointFor } from "./_endpoint.js";
import { clientFile, lineDiff, mergedConfig, readConfigFile, writeConfigFile } from "./_install.js";
import { issueLaunch } from "./_launches.js";
import { launchesBuiltin } from "./_launches-builtin.js";
import { serveMcpHttp } from "./_serve-http.js";
import { serveMcp } from "./_serve-stdio.js";

// What the catalog group reads of this one: which endpoint a command names,
// whether a strict preset's tools could run here (the client checks of `tools list --check` are the door tools-check.ts,
// loaded only when a check runs).
export { noEndpoint, refuseUnconfinable } from "./_endpoint.js";

const PRESET = flag("preset", "The task preset the server binds (default: agent)", {
  maxLength: 64,
});
const ENDPOINT = flag("endpoint", "The owner configuration's MCP endpoint to serve", {
  maxLength: 64,
});
const LAUNCH = flag(
  "launch",
  "The launch reference the client's configuration was given (mcp config and mcp install write it): every call is bound to it",
  { maxLength: 64 },
);
const HTTP = flag(
  "http",
  "Serve the endpoint over Streamable HTTP at host:port (or `configured`: its http.listen), each request authenticated by its bearer token",
  { maxLength: 300 },
);

/** How much of the access log `mcp serve --http` writes on stdout. */
const ACCESS_LEVELS = ["info", "warn", "silent"] as const;
const LOG_LEVEL = oneOf(
  "log_level",
  "With --http, the access log on stdout, one JSON line per request: info (every request; the default), warn (only those refused, failed or cancelled) or silent",
  ACCESS_LEVELS,
);

/** Completes an endpoint or a preset name. */
const suggest = (id: string, stateDir: string) =>
  candidates(stateDir, id === "endpoint" ? "endpoints" : "presets");

/** The `mcp` commands. */
export function mcpBuiltins(
  options: AdminOptions,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  const { brand } = options;
  return [
    {
      path: ["mcp", "serve"],
      summary:
        "Serve the active profile's tools over MCP on stdio (stdout carries protocol only), or over HTTP with --http",
      inputs: [ENDPOINT, PRESET, LAUNCH, HTTP, LOG_LEVEL],
      suggest,
      run: guarded(async (ctx, state) => {
        // A server prints no envelope: its stdout is the protocol's, or the access log's over HTTP.
        if (ctx.json)
          throw new UsageError(
            "--json does not apply to mcp serve: a server's stdout carries MCP messages only; leave out --json",
          );
        const endpoint = text(ctx.inputs, "endpoint");
        const preset = text(ctx.inputs, "preset");
        const http = text(ctx.inputs, "http");
        const launch = text(ctx.inputs, "launch");
        const logLevel = text(ctx.inputs, "log_level") as
          | (typeof ACCESS_LEVELS)[number]
          | undefined;
        if (http !== undefined) {
          if (preset !== undefined)
            throw new UsageError(
              "--preset does not apply to --http: a token's scopes choose its preset (see the endpoint's http.auth.presets)",
            );
          if (launch !== undefined)
            throw new UsageError(
              "--launch does not apply to --http: each request is bound to its token's subject and id",
            );
          return serveMcpHttp(
            ctx,
            state,
            { name: brand, version: options.version },
            {
              ...(endpoint !== undefined && { endpoint }),
              listen: http,
              logLevel: logLevel ?? "info",
            },
          );
        }
        if (logLevel !== undefined)
          throw new UsageError(
            "--log-level applies to --http only: over stdio, stdout carries MCP messages only, and the diagnostics go to stderr as before",
          );
        return serveMcp(
          ctx,
          state,
          { name: brand, version: options.version },
          {
            ...(endpoint !== undefined && { endpoint }),
            ...(preset !== undefined && { preset }),
            ...(launch !== undefined && { launch }),
          },
        );
      }),
    },
    launchesBuiltin(brand, guarded),
    {
      path: ["mcp", "config"],
      changesState: true,
      summary:
        "Print what an MCP client needs to start this server: a command to run or its configuration file's content",
      inputs: [
        oneOf("client", "The MCP client", MCP_CLIENTS, { required: true }),
        ENDPOINT,
        PRESET,
      ],
      suggest,
      run: guarded(async (ctx, state, profile) => {
        const { client, choice, launch } = await clientLaunch(options, ctx, state, profile);
        const snippet = clientConfig(client, launch);
        const notes = [...choice.notes, ...(choice.publish ? [await choice.publish()] : [])];
        tell(ctx, brand, notes);
        print(ctx, snippet, {
          client,
          ...(choice.endpoint !== undefined && { endpoint: choice.endpoint }),
          preset: choice.preset,
          snippet,
          ...(notes.length > 0 && { notes }),
        });
        return OK;
      }),
    },
    {
      path: ["mcp", "install"],
      changesState: true,
      summary:
        "Add this server to an MCP client's configuration file: merged in, the old file kept as a backup",
      inputs: [
        oneOf("client", "The MCP client", FILE_CLIENTS, { required: true }),
        ENDPOINT,
        PRESET,
        flag("file", "The configuration file (default: where the client keeps it)", {
          maxLength: 4096,
        }),
        bool("dry_run", "Show the change as a line diff and write nothing"),
      ],
      suggest,
      run: guarded(async (ctx, state, profile) => {
        const { client, choice, launch } = await clientLaunch(options, ctx, state, profile);
        const file = resolve(
          text(ctx.inputs, "file") ?? clientFile(client, ctx.env, process.cwd()),
        );
        // The file is read and merged first: a file that cannot be, publishes nothing.
        const before = readConfigFile(file);
        const after = mergedConfig(client, file, before, launch);
        const dryRun = ctx.inputs.dry_run === true;
        const notes = [
          ...choice.notes,
          ...(choice.publish && !dryRun ? [await choice.publish()] : []),
        ];
        tell(ctx, brand, notes);
        const told = notes.length > 0 && { notes };
        if (!after.changed) {
          print(ctx, `${file} already starts this server; nothing written`, {
            client,
            file,
            changed: false,
            ...told,
          });
          return OK;
        }
        if (dryRun) {
          const diff = lineDiff(file, before ?? "", after.text);
          print(ctx, `${diff}\n(dry run: nothing written)`, {
            client,
            file,
            changed: true,
            diff,
            ...told,
          });
          return OK;
        }
        const backup = writeConfigFile(file, after.text, before !== undefined);
        print(
          ctx,
          `added ${brand} to ${file}${backup === undefined ? "" : `; the previous file is ${backup}`}; restart ${client} to load it`,
          { client, file, changed: true, ...(backup !== undefined && { backup }), ...told },
        );
        return OK;
      }),
    },
  ];
}

/** The client, the endpoint chosen (or created) for it, and how the server starts. */
async function clientLaunch(
  options: AdminOptions,
  ctx: BuiltinContext,
  state: StateDirectory,
  profile: Profile,
) {
  const { brand } = options;
  const client = text(ctx.inputs, "client") as McpClient;
  const endpoint = text(ctx.inputs, "endpoint");
  const preset = text(ctx.inputs, "preset");
  const choice = await endpointFor(state, profile, {
    client,
    server: brand,
    ...(endpoint !== undefined && { endpoint }),
    ...(preset !== undefined && { preset }),
    dryRun: ctx.inputs.dry_run === true,
  });
  // The launch reference this client's configuration is given (the one it had, when it had one).
  const issued = issueLaunch(
    state,
    {
      client,
      ...(choice.endpoint !== undefined && { endpoint: choice.endpoint }),
      preset: choice.preset,
    },
    ctx.inputs.dry_run === true,
  );
  const launch: ServerLaunch = {
    name: brand,
    command: options.executable,
    args: [...choice.args, "--launch", issued?.id ?? "<issued when written>"],
    // The client starts the server from a directory of its own: the path must be absolute.
    env: { [stateDirVariable(brand)]: resolve(ctx.stateDir) },
  };
  return { client, choice, launch };
}

/** Notes for the owner: on stderr for people; with --json they are the result's `notes`. */
function tell(ctx: BuiltinContext, brand: string, notes: readonly string[]): void {
  if (!ctx.json) for (const n of notes) note(ctx, `${brand}: ${n}\n`);
}

/** The clients whose configuration is a file `mcp install` can write. */
const FILE_CLIENTS = MCP_CLIENTS.filter((c) => c !== "inspector");
