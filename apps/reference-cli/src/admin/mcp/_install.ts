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
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { lineColumn, parseJson } from "@rukh/json";
import { readFileAtMost } from "@rukh/profile/route-cache";
import { UsageError } from "../kit/index.js";
import { clientConfig, type McpClient, type ServerLaunch } from "./_clients.js";

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

/** The file's text, or `undefined` when it does not exist; never more than 1 MiB is read. */
export function readConfigFile(file: string): string | undefined {
  const bytes = readFileAtMost(file, CONFIG_FILE_MAX_BYTES);
  if (bytes === "large")
    throw new UsageError(
      `${file} is larger than ${CONFIG_FILE_MAX_BYTES} bytes; expected a client configuration`,
    );
  return bytes?.toString("utf8");
}

function parseJsonFile(file: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Where it fails, from the strict reader (which fails too); never the file's text,
    // which may hold other servers' secrets.
    const r = parseJson(text);
    const where =
      !r.ok && r.error.offset !== undefined ? `:${lineColumn(text, r.error.offset)}` : "";
    const what = r.ok ? "" : ` (${r.error.code.replaceAll("_", " ")})`;
    throw new UsageError(
      `${file}${where} is not valid JSON${what}; fix or move it, nothing was written`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new UsageError(
      `${file} holds ${JSON.stringify(value)?.slice(0, 40)}; expected an object`,
    );
  return value as Record<string, unknown>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `text` with the Codex table of `name` replaced by `block` (its header, any
 * `[mcp_servers.<name>.…]` sub-tables, up to the next other table) or
 * `block` appended. Forms it cannot replace safely — the server defined as
 * an inline table or by dotted keys — are refused rather than duplicated.
 */
function replaceTomlTable(file: string, text: string, block: string, name: string): string {
  const key = `(?:${escapeRegExp(name)}|"${escapeRegExp(name)}")`;
  const own = new RegExp(`^\\s*\\[\\s*mcp_servers\\s*\\.\\s*${key}\\s*\\](\\s*#.*)?\\s*$`);
  const sub = new RegExp(`^\\s*\\[\\s*mcp_servers\\s*\\.\\s*${key}\\s*\\.`);
  const lines = text.split("\n");
  let table = "";
  for (const [i, l] of lines.entries()) {
    const header = /^\s*\[\s*([^\]]*?)\s*\]/.exec(l);
    if (header !== null) table = header[1]!;
    else if (
      (table === "mcp_servers" && new RegExp(`^\\s*${key}\\s*[.=]`).test(l)) ||
      (table === "" && new RegExp(`^\\s*mcp_servers\\s*\\.\\s*${key}\\s*[.=]`).test(l))
    )
      throw new UsageError(
        `${file}:${i + 1}: the ${name} server is defined there in a form this command does not rewrite; edit it by hand to the table \`mcp config --client codex\` prints`,
      );
  }
  const start = lines.findIndex((l) => own.test(l));
  if (start === -1) {
    const body = text.replace(/\n*$/, "");
    return `${body === "" ? "" : `${body}\n\n`}${block}\n`;
  }
  let end = start + 1;
  while (end < lines.length && (!/^\s*\[/.test(lines[end]!) || sub.test(lines[end]!))) end++;
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
    const text = replaceTomlTable(file, existing ?? "", clientConfig(client, launch), launch.name);
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
  // The user's own settings of this entry (disabled, autoApprove, cwd…) stay.
  const old = table[launch.name];
  const merged =
    old !== null && typeof old === "object" && !Array.isArray(old) ? { ...old, ...entry } : entry;
  if (existing !== undefined && isDeepStrictEqual(old, merged))
    return { text: existing, changed: false };
  const text = `${JSON.stringify({ ...config, [key]: { ...table, [launch.name]: merged } }, null, 2)}\n`;
  return { text, changed: true };
}

/** A line diff of `before` and `after` (`-`/`+`/` ` lines), for `--dry-run`. */
export function lineDiff(file: string, before: string, after: string): string {
  const all = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const bll = after.replace(/\n$/, "").split("\n");
  // The lines both share at the start and the end are context; only the middle is compared.
  let head = 0;
  while (head < all.length && head < bll.length && all[head] === bll[head]) head++;
  let tail = 0;
  while (
    tail < all.length - head &&
    tail < bll.length - head &&
    all[all.length - 1 - tail] === bll[bll.length - 1 - tail]
  )
    tail++;
  const a = all.slice(head, all.length - tail);
  const b = bll.slice(head, bll.length - tail);
  // Too large a middle for a line-by-line comparison: shown as removed, then added.
  if (a.length * b.length > 4_000_000)
    return [
      `--- ${file}`,
      `+++ ${file}`,
      ...all.slice(0, head).map((l) => `  ${l}`),
      ...a.map((l) => `- ${l}`),
      ...b.map((l) => `+ ${l}`),
      ...all.slice(all.length - tail).map((l) => `  ${l}`),
    ].join("\n");
  // Longest common subsequence over lines: configuration files are small.
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out = [`--- ${file}`, `+++ ${file}`, ...all.slice(0, head).map((l) => `  ${l}`)];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  out.push(...all.slice(all.length - tail).map((l) => `  ${l}`));
  return out.join("\n");
}

/**
 * Writes `text` to `file` atomically (a temporary file beside it, synced,
 * renamed over it), after copying the file it replaces to
 * `<file>.<time>.bak`; returns the backup's path, if there was a file.
 */
export function writeConfigFile(path: string, text: string, existed: boolean): string | undefined {
  // A symlinked file (a dotfile manager's) is written where it points, and stays a link.
  const file = existed ? realpathSync(path) : path;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let backup: string | undefined;
  let mode = 0o600;
  if (existed) {
    mode = statSync(file).mode & 0o777;
    backup = `${file}.${new Date().toISOString().replace(/[:.]/g, "-")}.bak`;
    copyFileSync(file, backup);
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = openSync(tmp, "wx", mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return backup;
}
