// `mcp serve` and `mcp config`: the stdio server, and what a client needs to start it.

import type { CliBuiltin } from "@rukh/cli";
import { candidates } from "./_current.js";
import { flag, oneOf, text } from "./_inputs.js";
import { type AdminBody, OK, print, STATE, USAGE, UsageError } from "./_kit.js";
import type { AdminOptions } from "./index.js";

const PRESET = flag(
  "preset",
  "The task preset the server binds (default: agent for config, the default preset for serve)",
  {
    maxLength: 64,
  },
);

/** The `mcp` commands. */
export function mcpBuiltins(
  options: AdminOptions,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  const { brand } = options;
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
      summary: "Print the configuration snippet an MCP client needs to start this server",
      inputs: [
        oneOf(
          "client",
          "The MCP client",
          ["claude-code", "claude-desktop", "vscode", "inspector"],
          {
            required: true,
          },
        ),
        PRESET,
      ],
      suggest: (_id, stateDir) => candidates(stateDir, "presets"),
      run: guarded((ctx) => {
        const preset = text(ctx.inputs, "preset") ?? "agent";
        const client = text(ctx.inputs, "client");
        const snippet = clientConfig(client, options, ctx.stateDir, preset);
        print(ctx, snippet, { client, preset, snippet });
        return OK;
      }),
    },
  ];
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
