// The Markdown reference `docs` prints: every extension command and every
// administrative command by the same generator, from the CLI view of its
// declaration, and the tools a preset sees.

import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { builtinCliSpec, type CliBuiltin } from "@rukh/cli";
import type { CliCommandSpec } from "@rukh/descriptor";
import type { StateDirectory } from "@rukh/profile";
import { type Profile, presetOf } from "../kit/index.js";
import { TASK_WORDS, taskSupport } from "./_task.js";

/**
 * A summary and a description as Markdown: one indented code block, every
 * line four spaces in. Nothing inside one is Markdown — no line of it can
 * open a heading, a fence, a list, a quote, HTML or a table, nor sit at the
 * margin as a `$` line — and nothing inside can end it: only a line indented
 * less than four spaces does, and there is none. It reads as help shows it.
 */
function verbatim(texts: readonly string[]): string[] {
  return texts
    .join("\n\n")
    .split("\n")
    .map((line) => (line === "" ? "" : `    ${line}`));
}

/** One command's section: summary, description, aliases and its parameters. */
function commandDoc(brand: string, r: CliCommandSpec, mcp: boolean): string[] {
  const prose = [r.summary, ...(r.description ? [r.description] : [])];
  const out = [`### \`${brand} ${r.path.join(" ")}\``, "", ...verbatim(prose), ""];
  if (r.aliases.length)
    out.push(`Aliases: ${r.aliases.map((a) => `\`${brand} ${a.join(" ")}\``).join(", ")}`, "");
  const table = parameterTable(r, mcp);
  return table.length === 0 ? out : [...out, ...table, ""];
}

/**
 * A command's parameters as the lines of a Markdown table — each one's
 * spelling, MCP property (when `mcp`), type, whether it is required, its
 * default and summary — or no line for a command without any. `docs` and
 * the guides' option tables are made by it.
 *
 * @example
 * parameterTable(route.cli, false); // ["| parameter | type | required | default | summary |", …]
 */
export function parameterTable(r: CliCommandSpec, mcp: boolean): string[] {
  const params = [...r.positionals, ...r.flags];
  if (params.length === 0) return [];
  const out: string[] = [];
  out.push(
    `| parameter |${mcp ? " MCP property |" : ""} type | required | default | summary |`,
    `|---|${mcp ? "---|" : ""}---|---|---|---|`,
  );
  for (const p of params) {
    const spelled =
      p.flag !== undefined
        ? `\`--${p.flag}\`${p.short ? ` / \`-${p.short}\`` : ""}`
        : `\`<${p.id}>\``;
    out.push(
      `| ${spelled} |${mcp ? ` \`${p.id}\` |` : ""} ${p.list ? `list of ${p.valueType}` : p.valueType} | ${p.required ? "yes" : "no"} | ${p.default === undefined ? "" : `\`${JSON.stringify(p.default)}\``} | ${p.summary.replaceAll("|", "\\|")} |`,
    );
  }
  return out;
}

/** This build of the CLI: the reference of its own commands changes with it. */
export function build(): string {
  const entry = fileURLToPath(import.meta.url);
  const st = statSync(entry);
  return `${entry}:${st.size}:${st.mtimeMs}`;
}

/** What a reference covers: the brand, the preset whose tools it lists (default the default preset) and the administrative commands. */
export interface ReferenceScope {
  readonly brand: string;
  readonly preset: string | undefined;
  readonly admin: () => readonly CliBuiltin[];
}

/** The Markdown reference, section by section (each ends with a newline). */
export async function markdown(
  profile: Profile,
  state: StateDirectory,
  { brand, preset, admin }: ReferenceScope,
): Promise<Iterable<string>> {
  const projection = await state.projection();
  const routes = profile.cliRoutes(projection);
  const admins: CliCommandSpec[] = [];
  for (const b of admin()) {
    const r = await builtinCliSpec(b);
    if (r !== undefined && b.hidden !== true) admins.push(r);
  }
  const name = preset ?? projection.config.defaultPreset;
  presetOf(profile, projection.config, name);
  // Every tool the preset sees, as its pages hold them, without building the pages.
  // What a server of the preset serves: no development link (no endpoint of the preset is named here).
  const tools = profile.visibleTools(projection, name);
  const lines = (l: readonly string[]) => `${l.join("\n")}\n`;
  return (function* () {
    yield lines([
      `# ${brand} command reference`,
      "",
      `Profile revision \`${projection.revisionId}\`.`,
      "",
      "## Commands",
      "",
    ]);
    for (const r of routes.commands) yield lines(commandDoc(brand, r.cli, true));
    // The brand's own commands, from their declarations: the same generator.
    yield lines(["## Administration", "", `Built into ${brand}; never MCP tools.`, ""]);
    for (const r of admins) yield lines(commandDoc(brand, r, false));
    yield lines([`## MCP tools (preset \`${name}\`)`, ""]);
    if (tools.length === 0) yield lines(["No tools are visible to this preset.", ""]);
    // A tool's description is its command's, written in the command's section above.
    const pathOf = new Map(routes.commands.map((r) => [r.identity, r.path.join(" ")]));
    const preset = presetOf(profile, projection.config, name);
    for (const t of tools)
      yield lines([
        `### ${t.title}`,
        "",
        `Name: \`${t.name}\` (command \`${t.identity}\`, \`${brand} ${pathOf.get(t.identity)}\`)`,
        "",
        `Task: ${taskSupport(profile, preset, t)} (runs as a task ${TASK_WORDS[taskSupport(profile, preset, t)]}).`,
        "",
      ]);
  })();
}
