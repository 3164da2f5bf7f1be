// What the active profile offers, shown without starting any extension: the
// MCP tool list of a preset and a Markdown reference of every command.

import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { builtinCliSpec, type CliBuiltin, linkAgain, terminalBlock, terminalText } from "@rukh/cli";
import type { CliCommandSpec } from "@rukh/descriptor";
import type { McpTool, StateDirectory } from "@rukh/profile";
import { candidates } from "./_current.js";
import { docsCacheKey, keepDocs, readDocs } from "./_docs-cache.js";
import { bool, count, flag, text } from "./_inputs.js";
import {
  type AdminBody,
  ENDPOINT_OR_PRESET,
  OK,
  type Profile,
  plural,
  presetOf,
  print,
  REFUSED,
  UsageError,
} from "./_kit.js";
import { noEndpoint } from "./_mcp-endpoint.js";

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
      inputs: [PRESET, ENDPOINT, CHECK, MAX_BYTES, MAX_TOKENS],
      suggest: (id, stateDir) => candidates(stateDir, id === "endpoint" ? "endpoints" : "presets"),
      run: guarded(async (ctx, state, profile) => {
        for (const budget of ["max-bytes", "max-tokens"])
          if (ctx.inputs[budget.replace("-", "_")] !== undefined && ctx.inputs.check !== true)
            throw new UsageError(
              `--${budget} needs --check: a budget is what a check holds the list to`,
            );
        // A listing never publishes: it says which development links changed since they were linked.
        await linkAgain(ctx.stderr, state, false);
        const endpoint = text(ctx.inputs, "endpoint");
        const { tools, pages, preset, dev, hidden, projection } = await allTools(profile, state, {
          brand,
          preset: text(ctx.inputs, "preset"),
          endpoint,
        });
        if (ctx.inputs.check === true) {
          // Loaded when a check runs: help and completion never load it.
          const { checkReport, checkTool } = await import("./_tools-check.js");
          const budget = {
            ...(ctx.inputs.max_bytes !== undefined && { maxBytes: Number(ctx.inputs.max_bytes) }),
            ...(ctx.inputs.max_tokens !== undefined && {
              maxTokens: Number(ctx.inputs.max_tokens),
            }),
          };
          const checks = tools.map((t) =>
            checkTool(
              { ...profile.listedTool(projection, preset, t), identity: t.identity },
              { server: brand, ...budget },
            ),
          );
          const report = checkReport(checks, {
            preset,
            ...(endpoint !== undefined && { endpoint }),
            server: brand,
            ...budget,
          });
          print(ctx, report.human, report.result);
          return report.over === 0 ? OK : REFUSED;
        }
        const isDev = (t: McpTool) => dev.includes(t.identity.slice(0, t.identity.indexOf("/")));
        // A title is a publisher's text: four spaces in, deeper than a runnable `  $ ` line.
        const human = tools
          .map(
            (t) =>
              `${t.name}\n    ${terminalBlock(t.title)}  (${t.identity})${isDev(t) ? " [dev]" : ""}`,
          )
          .join("\n");
        const of = endpoint === undefined ? "" : ` at endpoint ${endpoint}`;
        // What a server of this preset leaves out: the development links no endpoint of it names.
        const unlisted =
          hidden.length === 0
            ? ""
            : `\nnot listed: ${plural(hidden.length, "tool")} of development links (${[...new Set(hidden.map((t) => t.identity.slice(0, t.identity.indexOf("/"))))].join(", ")}); an endpoint lists them only when its owner names them in devExtensions`;
        print(
          ctx,
          `${human || "no tools"}\n${tools.length} tools in ${pages} page${pages === 1 ? "" : "s"} for preset ${preset}${of}${unlisted}`,
          {
            preset,
            ...(endpoint !== undefined && { endpoint }),
            pages,
            // Each tool as a server of the preset sends it, and the command it names.
            tools: tools.map((t) => ({
              ...profile.listedTool(projection, preset, t),
              identity: t.identity,
              ...(isDev(t) && { dev: true }),
            })),
            ...(hidden.length > 0 && {
              hiddenDevTools: hidden.map((t) => ({ name: t.name, identity: t.identity })),
            }),
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
      run: guarded(async (ctx, state, profile) => {
        // A listing never publishes: it says which development links changed since they were linked.
        await linkAgain(ctx.stderr, state, false);
        const preset = text(ctx.inputs, "preset");
        const revisionId = await state.activeRevisionId();
        // A revision's reference is rendered once and kept: the same revision,
        // preset, brand and build give the same text.
        const key =
          revisionId === null
            ? undefined
            : docsCacheKey([revisionId, preset ?? "", brand, build()]);
        // Kept beside the journal: a read-only state directory's replica keeps its own.
        const { journalRoot } = await state.places();
        let md = key === undefined ? undefined : readDocs(profile.readBounded, journalRoot, key);
        if (md === undefined) {
          md = [...(await markdown(profile, state, { brand, preset, admin }))].join("");
          if (key !== undefined) keepDocs(journalRoot, key, md);
        }
        // --json gets the Markdown inside a versioned envelope, not bare Markdown.
        if (ctx.json) print(ctx, md, { markdown: md });
        else ctx.stdout.write(terminalText(md));
        return OK;
      }),
    },
  ];
}

const CHECK = bool(
  "check",
  "Check each tool against what known clients take and the budget given; exit 4 when any is over",
);
const MAX_BYTES = count("max_bytes", "With --check: the most bytes one listed tool may cost", {
  minimum: 1,
  maximum: 1_048_576,
});
const MAX_TOKENS = count(
  "max_tokens",
  "With --check: the most tokens one listed tool may cost (estimated as bytes / 3)",
  { minimum: 1, maximum: 1_048_576 },
);

const ENDPOINT = flag(
  "endpoint",
  "Show the list as this MCP endpoint serves it (its preset and tool names)",
  {
    maxLength: 64,
  },
);

/** Whose tool list `tools list` shows: a preset's, or an endpoint's. */
interface ToolsView {
  readonly brand: string;
  readonly preset: string | undefined;
  readonly endpoint: string | undefined;
}

async function allTools(
  profile: Profile,
  state: StateDirectory,
  { brand, preset, endpoint }: ToolsView,
) {
  let projection = await state.projection();
  let name = preset ?? projection.config.defaultPreset;
  // Exactly what a server of the preset (or the endpoint) serves: development links only where named.
  let devAllowed: readonly string[] = [];
  let responseMaxBytes: number | undefined;
  if (endpoint !== undefined) {
    if (preset !== undefined) throw new UsageError(ENDPOINT_OR_PRESET);
    const e = profile.mcpEndpoint(projection.config, endpoint);
    if (e === undefined) throw noEndpoint(brand, projection.config, endpoint);
    projection = await state.projection(projection.revisionId, e.naming);
    name = e.preset;
    devAllowed = e.devExtensions;
    // Its pages are as large as its answers may be.
    responseMaxBytes = e.limits.responseMaxBytes;
  }
  presetOf(profile, projection.config, name);
  // The state directory's key, made now if it can take one, so that copies shipped from
  // it agree on cursors; on a read-only copy without one, a key of this listing's own
  // (its cursors never leave this process), so that listing writes nothing.
  const places = await state.places();
  const cursorKey = places.keyRoot === state.root ? await state.cursorKey() : randomBytes(32);
  const tools: McpTool[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = profile.listTools(projection, {
      preset: name,
      devAllowed,
      cursorKey,
      ...(responseMaxBytes !== undefined && { responseMaxBytes }),
      ...(cursor !== undefined && { cursor }),
    });
    tools.push(...page.tools);
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const listed = new Set(tools.map((t) => t.name));
  const hidden = profile
    .visibleTools(projection, name, projection.devExtensions)
    .filter((t) => !listed.has(t.name));
  return { tools, pages, preset: name, dev: projection.devExtensions, hidden, projection };
}

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
function build(): string {
  const entry = fileURLToPath(import.meta.url);
  const st = statSync(entry);
  return `${entry}:${st.size}:${st.mtimeMs}`;
}

/** What a reference covers: the brand, the preset whose tools it lists (default the default preset) and the administrative commands. */
interface ReferenceScope {
  readonly brand: string;
  readonly preset: string | undefined;
  readonly admin: () => readonly CliBuiltin[];
}

/** The Markdown reference, section by section (each ends with a newline). */
async function markdown(
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
    for (const t of tools)
      yield lines([
        `### ${t.title}`,
        "",
        `Name: \`${t.name}\` (command \`${t.identity}\`, \`${brand} ${pathOf.get(t.identity)}\`)`,
        "",
      ]);
  })();
}
