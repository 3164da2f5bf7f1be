// What the active profile offers, shown without starting any extension: the
// MCP tool list of a preset and a Markdown reference of every command.

import type { CliBuiltin } from "@rukh/cli";
import {
  cliRoutes,
  listTools,
  type McpTool,
  presetNamed,
  type StateDirectory,
} from "@rukh/profile";
import { type AdminBody, OK, parse, print, UsageError } from "./_kit.js";

/** The `tools list` and `docs` commands. */
export function catalogBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
): CliBuiltin[] {
  return [
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
      path: ["docs"],
      summary: "Print a Markdown reference of every command and tool of the active profile",
      usage: "[--preset <name>]",
      run: guarded(async (ctx, home) => {
        const { values } = parse(ctx.args, { preset: { type: "string" } });
        const text = await markdown(home, brand, values.preset as string | undefined);
        // --json gets the Markdown inside a versioned envelope, not bare Markdown.
        print(ctx, text, { markdown: text });
        return OK;
      }),
    },
  ];
}

async function allTools(home: StateDirectory, preset: string | undefined) {
  const projection = await home.projection();
  const name = preset ?? projection.config.defaultPreset;
  if (presetNamed(projection.config, name) === undefined)
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
