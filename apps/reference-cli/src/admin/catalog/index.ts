// What the active profile offers, shown without starting any extension.
// Its steps: `tools list` — the exact MCP tool list of a preset or an
// endpoint, page by page, and with `--check` what each tool costs a client
// (the mcp group's second door, `tools-check.ts`, loaded only when a check
// runs); `docs` — a Markdown reference of every command and tool
// (`_reference.ts`), rendered once per revision and kept (`_docs-cache.ts`).
// It imports the kit room, and the mcp group's endpoint choice and tool check.
import { randomBytes } from "node:crypto";
import { type CliBuiltin, linkAgain, terminalBlock, terminalText } from "@rukh/cli";
import type { McpTool, StateDirectory } from "@rukh/profile";
import {
  type AdminBody,
  bool,
  candidates,
  count,
  ENDPOINT_OR_PRESET,
  flag,
  OK,
  type Profile,
  plural,
  presetOf,
  print,
  REFUSED,
  text,
  UsageError,
} from "../kit/index.js";
import { noEndpoint, refuseUnconfinable } from "../mcp/index.js";
import { docsCacheKey, keepDocs, readDocs } from "./_docs-cache.js";
import { build, markdown } from "./_reference.js";
import { taskSupport } from "./_task.js";

export { parameterTable } from "./_reference.js";

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
        // An agent would get an explicit error for this list, not the list: so does the owner.
        await refuseUnconfinable(state, brand, [preset]);
        if (ctx.inputs.check === true) {
          // Loaded when a check runs: help and completion never load it.
          const { checkReport, checkTool } = await import("../mcp/tools-check.js");
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
        const presetSpec = presetOf(profile, projection.config, preset);
        const task = (t: McpTool) => taskSupport(profile, presetSpec, t);
        const human = tools
          .map(
            (t) =>
              `${t.name}\n    ${terminalBlock(t.title)}  (${t.identity})${isDev(t) ? " [dev]" : ""}${task(t) === "forbidden" ? "" : ` [task: ${task(t)}]`}`,
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
              task: task(t),
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
        let md = key === undefined ? undefined : readDocs(profile.readFileAtMost, journalRoot, key);
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
