// The help text of the CLI, a group and a command, generated from the
// route index and the commands' declarations: an extension command's and a
// declared built-in's by the same function.

import type { CliCommandSpec, CliParameter } from "@rukh/descriptor";
import { stateDirVariable } from "@rukh/profile/route-cache";
import type { CliBuiltin } from "../declarations/index.js";
import {
  BLOCK_INDENT,
  commandLine,
  RUNNABLE,
  type Style,
  terminalBlock,
  terminalText,
} from "../output/index.js";
import type { Entry, GroupEntry, RouteIndex } from "../routes/index.js";

/**
 * A summary or description as help prints it: a block indented on every
 * line, deeper than {@link RUNNABLE}, so that no line of a publisher's text
 * begins where the CLI's own lines do (`See:`, `  $ …`).
 */
const prose = (text: string) => `${BLOCK_INDENT}${terminalBlock(text)}`;

/** Rows of two columns; what they hold (summaries, placeholders, defaults) is shown escaped. */
function table(given: readonly (readonly [string, string])[]): string[] {
  const rows = given.map(([l, r]) => [terminalText(l), terminalText(r)] as const);
  const width = Math.min(32, Math.max(0, ...rows.map(([l]) => l.length)));
  return rows.map(([l, r]) =>
    r === ""
      ? `  ${l}`
      : l.length > width
        ? `  ${l}\n  ${" ".repeat(width)}  ${r}`
        : `  ${l.padEnd(width)}  ${r}`,
  );
}

const globalFlags = (brand: string): readonly (readonly [string, string])[] => [
  ["-h, --help", "Show help for the CLI, a group or a command"],
  ["-V, --version", "Print the version"],
  ["    --json", "Print one JSON envelope: a result, an outcome or an error (for scripts)"],
  [
    "    --home <dir>",
    `State directory, before the command path (${stateDirVariable(brand)} wins)`,
  ],
  ["    --no-color", "No ANSI colour (NO_COLOR and a non-TTY also turn it off)"],
];

function listing(index: RouteIndex, path: readonly string[], brand: string): string[] {
  const { groups, entries } = index.children(path);
  const rows: [string, string][] = [
    ...groups.map((g): [string, string] => [
      `${g.path.at(-1)!} …`,
      `${g.summary}${g.dev === true ? " [dev]" : ""}`,
    ]),
    ...entries.map((e): [string, string] => [
      e.path.at(-1)!,
      `${e.alias ? `${e.summary} (alias of ${brand} ${target(e).join(" ")})` : e.summary}${e.dev === undefined ? "" : " [dev]"}`,
    ]),
  ];
  return rows.length === 0 ? ["  (none installed)"] : table(rows);
}

function target(e: Entry): readonly string[] {
  return e.target.kind === "command" ? e.target.head.path : e.target.builtin.path;
}

/** Root help: top-level groups and commands, global flags and runnable examples. */
export function rootHelp(
  index: RouteIndex,
  brand: string,
  version: string | undefined,
  s: Style,
): string {
  const { groups, entries } = index.children([]);
  const examples: string[] = [];
  const g = groups[0];
  if (g !== undefined) examples.push(`${RUNNABLE}${brand} ${g.path.join(" ")} --help`);
  const c = entries.find((e) => e.target.kind === "command") ?? entries[0];
  if (c !== undefined) examples.push(`${RUNNABLE}${brand} help ${c.path.join(" ")}`);
  return [
    ...(version !== undefined ? [`${brand} ${version}`, ""] : []),
    `${s.heading("Usage:")} ${brand} <command> [flags]`,
    "",
    s.heading("Commands:"),
    ...listing(index, [], brand),
    "",
    s.heading("Global flags:"),
    ...table(globalFlags(brand)),
    "",
    s.heading("Examples:"),
    ...examples,
    "",
  ].join("\n");
}

/** Group help: its summary, description and children. */
export function groupHelp(index: RouteIndex, group: GroupEntry, brand: string, s: Style): string {
  const { groups, entries } = index.children(group.path);
  const first = entries[0] ?? groups[0];
  return [
    `${s.heading("Usage:")} ${brand} ${group.path.join(" ")} <command> [flags]`,
    ...(group.summary ? ["", prose(group.summary)] : []),
    ...(group.description ? ["", prose(group.description)] : []),
    "",
    s.heading("Commands:"),
    ...listing(index, group.path, brand),
    ...(first !== undefined
      ? ["", s.heading("Examples:"), `${RUNNABLE}${brand} ${first.path.join(" ")} --help`]
      : []),
    "",
  ].join("\n");
}

/** How a positional appears in a usage line. */
function positionalUsage(p: CliParameter): string {
  const name = p.placeholder;
  const body = p.list ? `${name}...` : name;
  return p.required ? body : `[${body}]`;
}

function flagRow(p: CliParameter): [string, string] {
  const left = `${p.short !== undefined ? `-${p.short}, ` : "    "}--${p.flag}${p.valueType === "boolean" && !p.list ? "" : ` ${p.placeholder}`}`;
  const notes: string[] = [];
  if (p.required) notes.push("required");
  if (p.default !== undefined) notes.push(`default: ${JSON.stringify(p.default)}`);
  if (p.list) notes.push("repeatable");
  if (p.valueType === "boolean" && !p.list) notes.push(`--${p.flag} or --${p.flag}=false`);
  return [left, `${p.summary}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`];
}

/**
 * A complete invocation that is valid whatever the bounds are, if one exists,
 * as a shell runs it: an enum value is the publisher's text, quoted when it must be.
 */
function example(brand: string, path: readonly string[], cli: CliCommandSpec): string | undefined {
  if (cli.passthrough) return undefined;
  const parts = [brand, ...path];
  for (const p of [...cli.positionals, ...cli.flags]) {
    if (!p.required) continue;
    if (p.valueType !== "enum" && p.valueType !== "boolean") return undefined;
    if (p.list) return undefined;
    const value = p.valueType === "boolean" ? "true" : p.placeholder.slice(1, -1).split("|")[0]!;
    parts.push(p.flag === undefined ? value : `--${p.flag}=${value}`);
  }
  return commandLine(parts);
}

/**
 * Command help of a declared command, an extension command or a built-in
 * alike: usage line, arguments, every flag with placeholder, default and
 * required marker. `dev` is the source directory of a development link.
 */
export function commandHelp(
  brand: string,
  cli: CliCommandSpec,
  s: Style,
  dev?: string | undefined,
): string {
  const words = [brand, ...cli.path];
  const usage = cli.passthrough
    ? `${words.join(" ")} [arguments passed to the program...]`
    : [
        ...words,
        ...cli.positionals.map(positionalUsage),
        ...(cli.flags.length > 0 ? ["[flags]"] : []),
      ].join(" ");
  const ex = example(brand, cli.path, cli);
  const lines = [`${s.heading("Usage:")} ${terminalText(usage)}`, "", prose(cli.summary)];
  if (cli.description) lines.push("", prose(cli.description));
  if (dev !== undefined)
    lines.push(
      "",
      `[dev] Linked for development from ${terminalText(dev)}: unsigned, run from a copy taken`,
      "when the directory last changed, and not visible to agents unless the owner names it.",
    );
  if (cli.passthrough)
    lines.push(
      "",
      `Every word after "${words.join(" ")}" goes to the program unchanged, flags included;`,
      "its exit status is this command's exit status.",
    );
  if (cli.positionals.length > 0)
    lines.push(
      "",
      s.heading("Arguments:"),
      ...table(
        cli.positionals.map((p) => [
          p.list ? `${p.placeholder}...` : p.placeholder,
          `${p.summary}${p.required ? " (required)" : ""}${p.default !== undefined ? ` (default: ${JSON.stringify(p.default)})` : ""}`,
        ]),
      ),
    );
  if (cli.flags.length > 0) lines.push("", s.heading("Flags:"), ...table(cli.flags.map(flagRow)));
  if (cli.aliases.length > 0)
    lines.push("", s.heading("Aliases:"), ...cli.aliases.map((a) => `  ${brand} ${a.join(" ")}`));
  lines.push("", `Global flags: --help, --json, --no-color (see "${brand} --help").`);
  if (ex !== undefined) lines.push("", s.heading("Examples:"), `${RUNNABLE}${terminalText(ex)}`);
  lines.push("");
  return lines.join("\n");
}

/** Help of a built-in that takes raw arguments: its usage line and text. */
export function builtinHelp(brand: string, b: CliBuiltin, s: Style): string {
  return [
    `${s.heading("Usage:")} ${[brand, ...b.path, ...(b.usage ? [b.usage] : [])].join(" ")}`,
    "",
    prose(b.summary),
    ...(b.description ? ["", prose(b.description)] : []),
    "",
  ].join("\n");
}
