// What the active profile offers, shown without starting any extension: the
// MCP tool list of a preset and a Markdown reference of every command.

import { builtinRoute, type CliBuiltin } from "@rukh/cli";
import type { CliRoute, McpTool, StateDirectory } from "@rukh/profile";
import { candidates } from "./_current.js";
import { flag, text } from "./_inputs.js";
import {
  type AdminBody,
  ENDPOINT_OR_PRESET,
  OK,
  type Profile,
  presetOf,
  print,
  UsageError,
} from "./_kit.js";

const PRESET = flag("preset", "The task preset whose view to show (default: the default preset)", {
  maxLength: 64,
});

/** The `tools list` and `docs` commands. */
export function catalogBuiltins(
  brand: string,
  guarded: (fn: AdminBody) => CliBuiltin["run"],
  admin: () => readonly CliBuiltin[],
): CliBuiltin[] {
  return [
    {
      path: ["tools", "list"],
      summary:
        "Show the exact MCP tool list of a preset (names, schemas, pages) without starting any extension",
      inputs: [PRESET, ENDPOINT],
      suggest: (id, stateDir) => candidates(stateDir, id === "endpoint" ? "endpoints" : "presets"),
      run: guarded(async (ctx, home, profile) => {
        const endpoint = text(ctx.inputs, "endpoint");
        const { tools, pages, preset, dev } = await allTools(
          profile,
          home,
          text(ctx.inputs, "preset"),
          endpoint,
        );
        const isDev = (t: McpTool) => dev.includes(t.identity.slice(0, t.identity.indexOf("/")));
        const human = tools
          .map(
            (t) =>
              `${t.name}\n  ${t.title}  (${t.identity})${isDev(t) ? ` [dev]${endpoint === undefined ? " (no endpoint lists it unless the owner names it in devExtensions)" : ""}` : ""}`,
          )
          .join("\n");
        const of = endpoint === undefined ? "" : ` at endpoint ${endpoint}`;
        print(
          ctx,
          `${human || "no tools"}\n${tools.length} tools in ${pages} page${pages === 1 ? "" : "s"} for preset ${preset}${of}`,
          {
            preset,
            ...(endpoint !== undefined && { endpoint }),
            pages,
            tools: tools.map((t) => (isDev(t) ? { ...t, dev: true } : t)),
          },
        );
        return OK;
      }),
    },
    {
      path: ["docs"],
      summary: "Print a Markdown reference of every command and tool of the active profile",
      inputs: [PRESET],
      suggest: (_id, stateDir) => candidates(stateDir, "presets"),
      run: guarded(async (ctx, home, profile) => {
        const md = await markdown(profile, home, brand, text(ctx.inputs, "preset"), admin);
        // --json gets the Markdown inside a versioned envelope, not bare Markdown.
        print(ctx, md, { markdown: md });
        return OK;
      }),
    },
  ];
}

const ENDPOINT = flag(
  "endpoint",
  "Show the list as this MCP endpoint serves it (its preset and tool names)",
  {
    maxLength: 64,
  },
);

async function allTools(
  profile: Profile,
  home: StateDirectory,
  preset: string | undefined,
  endpoint?: string,
) {
  let projection = await home.projection();
  let name = preset ?? projection.config.defaultPreset;
  // A preset's view shows development links too (marked); an endpoint's, only those it names.
  let devAllowed = projection.devExtensions;
  if (endpoint !== undefined) {
    if (preset !== undefined) throw new UsageError(ENDPOINT_OR_PRESET);
    const e = profile.mcpEndpoint(projection.config, endpoint);
    if (e === undefined) throw new UsageError(`no endpoint ${JSON.stringify(endpoint)}`);
    projection = await home.projection(projection.revisionId, e.naming);
    name = e.preset;
    devAllowed = e.devExtensions;
  }
  presetOf(profile, projection.config, name);
  const cursorKey = await home.cursorKey();
  const tools: McpTool[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = profile.listTools(projection, {
      preset: name,
      devAllowed,
      cursorKey,
      ...(cursor !== undefined && { cursor }),
    });
    tools.push(...page.tools);
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { tools, pages, preset: name, dev: projection.devExtensions };
}

/** One command's section: summary, description, aliases and its parameters. */
function routeDoc(brand: string, r: CliRoute, mcp: boolean): string[] {
  const out = [`### \`${brand} ${r.path.join(" ")}\``, "", r.cli.summary, ""];
  if (r.cli.description) out.push(r.cli.description, "");
  if (r.aliases.length)
    out.push(`Aliases: ${r.aliases.map((a) => `\`${brand} ${a.join(" ")}\``).join(", ")}`, "");
  const params = [...r.cli.positionals, ...r.cli.flags];
  if (params.length === 0) return out;
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
      `| ${spelled} |${mcp ? ` \`${p.id}\` |` : ""} ${p.list ? `list of ${p.valueType}` : p.valueType} | ${p.required ? "yes" : "no"} | ${p.default === undefined ? "" : `\`${JSON.stringify(p.default)}\``} | ${p.summary} |`,
    );
  }
  out.push("");
  return out;
}

async function markdown(
  profile: Profile,
  home: StateDirectory,
  brand: string,
  preset: string | undefined,
  admin: () => readonly CliBuiltin[],
): Promise<string> {
  const projection = await home.projection();
  const routes = profile.cliRoutes(projection);
  const out = [
    `# ${brand} command reference`,
    "",
    `Profile revision \`${projection.revisionId}\`.`,
    "",
    "## Commands",
    "",
  ];
  for (const r of routes.commands) out.push(...routeDoc(brand, r, true));
  // The brand's own commands, from their declarations: the same generator.
  out.push("## Administration", "", `Built into ${brand}; never MCP tools.`, "");
  for (const b of admin()) {
    const r = await builtinRoute(b);
    if (r !== undefined && b.hidden !== true) out.push(...routeDoc(brand, r, false));
  }
  const { tools, preset: name } = await allTools(profile, home, preset);
  out.push(`## MCP tools (preset \`${name}\`)`, "");
  if (tools.length === 0) out.push("No tools are visible to this preset.", "");
  // A tool's description is its command's, written in the command's section above.
  const pathOf = new Map(routes.commands.map((r) => [r.identity, r.path.join(" ")]));
  for (const t of tools)
    out.push(
      `### ${t.title}`,
      "",
      `Name: \`${t.name}\` (command \`${t.identity}\`, \`${brand} ${pathOf.get(t.identity)}\`)`,
      "",
    );
  return `${out.join("\n")}\n`;
}
