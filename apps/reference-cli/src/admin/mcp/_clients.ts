// What each MCP client needs to start `rukh mcp serve`: the exact text of its
// configuration (a shell command or the file's JSON or TOML), and the longest
// tool name it accepts once it has prefixed the server's name.

import { shellWord } from "@rukh/cli";

/** The clients `mcp config` knows. */
export const MCP_CLIENTS = [
  "claude-code",
  "claude-desktop",
  "vscode",
  "cursor",
  "codex",
  "inspector",
] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** Each client's name, as people know it (the guides' tables use it). */
export const MCP_CLIENT_NAMES: Readonly<Record<McpClient, string>> = {
  "claude-code": "Claude Code",
  "claude-desktop": "Claude Desktop",
  vscode: "VS Code",
  cursor: "Cursor",
  codex: "Codex",
  inspector: "MCP Inspector",
};

/** The Inspector release the printed command runs (the one this repository tests with). */
export const INSPECTOR_VERSION = "2.12.0";

/**
 * The longest tool name a client accepts, counted with the prefix it adds:
 * these clients hand tools to a model API whose function names are limited
 * to 64 characters, as `mcp__<server>__<tool>` (the longest prefix any of
 * them adds). `null`: no limit is known (the Inspector shows names as they are).
 */
export function nameLimit(
  client: McpClient,
  server: string,
): { prefix: string; max: number } | null {
  return client === "inspector" ? null : { prefix: `mcp__${server}__`, max: 64 };
}

/**
 * What a client is known to do with a listed tool beyond its name, each
 * fact as its maintainers or users reported it (absent: nothing is known):
 * - `descriptionMax`: the characters of a description its model is given
 *   (Claude Code cuts the rest: anthropics/claude-code#41593, #87650);
 * - `rootKeywords`: input-schema keywords it cannot take at the schema's
 *   root (the Anthropic API refuses `oneOf`, `allOf` and `anyOf` there,
 *   anthropics/claude-code#710, #4886; Claude Code drops a tool with any of
 *   these, anthropics/claude-code#95504);
 * - `flattened`: keywords it replaces by a plain string wherever they are
 *   (Codex, openai/codex#13768).
 */
export interface ClientReads {
  readonly descriptionMax?: number;
  readonly rootKeywords?: readonly string[];
  readonly flattened?: readonly string[];
}

/** {@link ClientReads} of each client. */
export const CLIENT_READS: Readonly<Record<McpClient, ClientReads>> = Object.freeze({
  "claude-code": {
    descriptionMax: 2_048,
    rootKeywords: ["oneOf", "allOf", "anyOf", "not", "if", "then", "else"],
  },
  "claude-desktop": { rootKeywords: ["oneOf", "allOf", "anyOf"] },
  vscode: {},
  cursor: {},
  codex: { flattened: ["anyOf", "oneOf"] },
  inspector: {},
});

/** What starts the server: the program, its arguments and its environment. */
export interface ServerLaunch {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const tomlKey = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

/** The configuration text for `client`: a command to run, or a configuration file's content. */
export function clientConfig(client: McpClient, s: ServerLaunch): string {
  const server = { command: s.command, args: s.args, env: s.env };
  const envWords = Object.entries(s.env).map(([k, v]) => shellWord(`${k}=${v}`));
  const argv = [s.command, ...s.args].map(shellWord).join(" ");
  switch (client) {
    case "claude-code":
      return `claude mcp add ${shellWord(s.name)} ${envWords.map((e) => `--env ${e}`).join(" ")} -- ${argv}`;
    case "claude-desktop":
    case "cursor":
      return JSON.stringify({ mcpServers: { [s.name]: server } }, null, 2);
    case "vscode":
      return JSON.stringify({ servers: { [s.name]: { type: "stdio", ...server } } }, null, 2);
    case "codex":
      return [
        `[mcp_servers.${tomlKey(s.name)}]`,
        `command = ${JSON.stringify(s.command)}`,
        `args = [${s.args.map((a) => JSON.stringify(a)).join(", ")}]`,
        `env = { ${Object.entries(s.env)
          .map(([k, v]) => `${tomlKey(k)} = ${JSON.stringify(v)}`)
          .join(", ")} }`,
      ].join("\n");
    case "inspector":
      return `npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${envWords.map((e) => `-e ${e}`).join(" ")} ${argv} --method tools/list`;
  }
}
