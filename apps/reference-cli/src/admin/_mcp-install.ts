// Writing a client's configuration file for `mcp install`: where each client
// keeps it, the file with this server's entry merged in (everything else kept
// as it was), a line diff for `--dry-run`, and a write that keeps a backup
// and never leaves a half-written file.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { UsageError } from "./_kit.js";
import { clientConfig, type McpClient, type ServerLaunch } from "./_mcp-clients.js";

/** The largest configuration file read (1 MiB). */
const CONFIG_FILE_MAX_BYTES = 1_048_576;

/**
 * Where `client` keeps its configuration: the user's file for Claude
 * Desktop, Cursor and Codex, the project's (in `cwd`) for Claude Code
 * (`.mcp.json`) and VS Code (`.vscode/mcp.json`).
 */
export function clientFile(
  client: McpClient,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string {
  const home = env.HOME || homedir();
  switch (client) {
    case "claude-desktop":
      return process.platform === "darwin"
        ? join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
        : join(
            env.XDG_CONFIG_HOME || join(home, ".config"),
            "Claude",
            "claude_desktop_config.json",
          );
    case "cursor":
      return join(home, ".cursor", "mcp.json");
    case "codex":
      return join(env.CODEX_HOME || join(home, ".codex"), "config.toml");
    case "claude-code":
      return join(cwd, ".mcp.json");
    case "vscode":
      return join(cwd, ".vscode", "mcp.json");
    case "inspector":
      throw new UsageError(
        "the Inspector has no configuration file; run the command `mcp config --client inspector` prints",
      );
  }
}

/** The file's text, or `undefined` when it does not exist; bounded. */
export function readConfigFile(file: string): string | undefined {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  if (size > CONFIG_FILE_MAX_BYTES)
    throw new UsageError(`${file} is ${size} bytes; expected at most ${CONFIG_FILE_MAX_BYTES}`);
  return readFileSync(file, "utf8");
}

/** Line and column (from 1) of a character offset. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `${line}:${offset - before.lastIndexOf("\n")}`;
}

function parseJsonFile(file: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec((e as Error).message);
    const where = at === null ? "" : `:${lineColumn(text, Number(at[1]))}`;
    throw new UsageError(
      `${file}${where} is not valid JSON (${(e as Error).message}); fix or move it, nothing was written`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new UsageError(
      `${file} holds ${JSON.stringify(value)?.slice(0, 40)}; expected an object`,
    );
  return value as Record<string, unknown>;
}

/** The Codex table of `name`: its header line through the line before the next table. */
function replaceTomlTable(text: string, block: string, name: string): string {
  const lines = text.split("\n");
  const header = block.split("\n")[0]!;
  const quoted = `[mcp_servers.${JSON.stringify(name)}]`;
  const start = lines.findIndex((l) => l.trim() === header || l.trim() === quoted);
  if (start === -1) {
    const body = text.replace(/\n*$/, "");
    return `${body === "" ? "" : `${body}\n\n`}${block}\n`;
  }
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  // Blank lines that separate the table from the next one stay.
  while (end > start + 1 && lines[end - 1]!.trim() === "") end--;
  return [...lines.slice(0, start), ...block.split("\n"), ...lines.slice(end)].join("\n");
}

/** The configuration file's new text with `launch` merged in, and whether it changed. */
export function mergedConfig(
  client: McpClient,
  file: string,
  existing: string | undefined,
  launch: ServerLaunch,
): { readonly text: string; readonly changed: boolean } {
  if (client === "codex") {
    const text = replaceTomlTable(existing ?? "", clientConfig(client, launch), launch.name);
    return { text, changed: text !== existing };
  }
  const key = client === "vscode" ? "servers" : "mcpServers";
  const server = { command: launch.command, args: launch.args, env: launch.env };
  const entry = client === "vscode" ? { type: "stdio", ...server } : server;
  const config = existing === undefined ? {} : parseJsonFile(file, existing);
  const servers = config[key] ?? {};
  if (typeof servers !== "object" || servers === null || Array.isArray(servers))
    throw new UsageError(`${file}: "${key}" is not an object; expected the client's server table`);
  const table = servers as Record<string, unknown>;
  if (existing !== undefined && isDeepStrictEqual(table[launch.name], entry))
    return { text: existing, changed: false };
  const text = `${JSON.stringify({ ...config, [key]: { ...table, [launch.name]: entry } }, null, 2)}\n`;
  return { text, changed: true };
}

/** A line diff of `before` and `after` (`-`/`+`/` ` lines), for `--dry-run`. */
export function lineDiff(file: string, before: string, after: string): string {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after.replace(/\n$/, "").split("\n");
  // Longest common subsequence over lines: configuration files are small.
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out = [`--- ${file}`, `+++ ${file}`];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.join("\n");
}

/**
 * Writes `text` to `file` atomically (a temporary file beside it, synced,
 * renamed over it), after copying the file it replaces to
 * `<file>.<time>.bak`; returns the backup's path, if there was a file.
 */
export function writeConfigFile(file: string, text: string, existed: boolean): string | undefined {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let backup: string | undefined;
  let mode = 0o600;
  if (existed) {
    mode = statSync(file).mode & 0o777;
    backup = `${file}.${new Date().toISOString().replace(/[:.]/g, "-")}.bak`;
    copyFileSync(file, backup);
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return backup;
}
