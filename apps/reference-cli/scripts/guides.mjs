#!/usr/bin/env node
// Writes the regions of the guides that the CLI's declarations can say
// themselves: the table of administration commands, the MCP clients and
// the options of the MCP commands. Each region sits between two marker
// comments in its guide; everything around it is written by hand.
//
//   node apps/reference-cli/scripts/guides.mjs          writes every region
//   node apps/reference-cli/scripts/guides.mjs --check  says which differ, exit 1
//
// It reads the built CLI (dist/), so build first (`pnpm guides` does).
// test/guides.test.ts fails when a guide holds anything else.

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { builtinCliSpec, COMPLETION_SHELLS } from "@rukh/cli";

const app = new URL("../", import.meta.url);
const { brandOf } = await import(new URL("dist/_brand.js", app).href);
const { adminBuiltins } = await import(new URL("dist/admin/index.js", app).href);
const { parameterTable } = await import(new URL("dist/admin/catalog/index.js", app).href);
const clients = await import(new URL("dist/admin/mcp/_clients.js", app).href);

/** Which regions each guide holds, by path from the repository's root. */
export const GUIDES = {
  "docs/owner-guide.md": ["admin-commands"],
  "docs/mcp-clients.md": ["mcp-clients", "mcp-options"],
  "docs/mcp.md": ["mcp-clients"],
};

/** The commands whose options the MCP guide shows. */
const MCP_COMMANDS = [
  ["mcp", "serve"],
  ["mcp", "config"],
  ["mcp", "install"],
  ["tools", "list"],
];

const begin = (name) =>
  `<!-- generated: ${name} (from the CLI's declarations by pnpm guides; edit those, not this) -->`;
const end = (name) => `<!-- end generated: ${name} -->`;

/** A table cell's text: its pipes escaped. */
const cell = (text) => text.replaceAll("|", "\\|");

/** How a command is called, from its declared inputs: `install <packages>... [--allow-downgrade]`. */
function synopsis(cli) {
  const words = [];
  for (const p of cli.positionals) {
    const w = `<${p.id}>${p.list ? "..." : ""}`;
    words.push(p.required ? w : `[${w}]`);
  }
  for (const f of cli.flags) {
    const flag =
      f.valueType === "boolean" && !f.list ? `--${f.flag}` : `--${f.flag} ${f.placeholder}`;
    words.push(f.required ? flag : `[${flag}]${f.list ? "…" : ""}`);
  }
  return words.join(" ");
}

/** The brand's administration commands, each with how it appears on the command line, as the CLI declares them. */
async function declared() {
  const manifest = JSON.parse(readFileSync(new URL("package.json", app), "utf8"));
  const brand = brandOf(manifest);
  if (!brand.ok) throw new Error(`package.json: ${brand.issues.join("; ")}`);
  const name = brand.value.name;
  const builtins = adminBuiltins({ brand: name, version: manifest.version, executable: name });
  const commands = [];
  for (const b of builtins) {
    if (b.hidden === true) continue;
    const cli = await builtinCliSpec(b);
    if (cli === undefined) throw new Error(`${b.path.join(" ")} declares no inputs`);
    commands.push({ builtin: b, cli });
  }
  return { brand: name, commands };
}

/** Every group and its commands (one-word commands in the last row), each as it is called. */
function adminTable({ commands }) {
  const groups = new Map();
  for (const { builtin, cli } of commands) {
    const [first, ...rest] = builtin.path;
    const group = rest.length === 0 ? "—" : first;
    const call = `${[...(rest.length === 0 ? [first] : rest), synopsis(cli)].filter(Boolean).join(" ")}`;
    groups.set(group, [...(groups.get(group) ?? []), call]);
  }
  // The CLI's own completion scripts, which every brand has.
  groups.set("—", [...(groups.get("—") ?? []), `completion <${COMPLETION_SHELLS.join("|")}>`]);
  const rows = [...groups].sort(([a], [b]) => (a === "—") - (b === "—"));
  return [
    "| group | commands |",
    "|---|---|",
    ...rows.map(
      ([group, calls]) =>
        `| ${group === "—" ? "—" : `\`${group}\``} | ${calls.map((c) => `\`${cell(c)}\``).join(", ")} |`,
    ),
  ];
}

/** What `mcp config` prints for a client, told from its own output. */
function printed(client, brand) {
  const text = clients.clientConfig(client, { name: brand, command: brand, args: [], env: {} });
  if (text.startsWith("{")) return "the JSON of its configuration file";
  if (text.startsWith("[")) return "the TOML of its configuration file";
  return "a command to run";
}

/** Every client `mcp config` knows: what it prints, whether `mcp install` writes its file, its tool names. */
function clientTable({ brand, commands }) {
  const install = commands.find((c) => c.builtin.path.join(" ") === "mcp install");
  const writes = install.builtin.inputs.find((i) => i.id === "client").values;
  return [
    `| client | \`--client\` | \`${brand} mcp config\` prints | \`${brand} mcp install\` writes its file | tool names it accepts |`,
    "|---|---|---|---|---|",
    ...clients.MCP_CLIENTS.map((c) => {
      const limit = clients.nameLimit(c, brand);
      const names =
        limit === null
          ? "any: it shows them as they are"
          : `at most ${limit.max} characters with its prefix \`${limit.prefix}\`: compact names`;
      return `| ${clients.MCP_CLIENT_NAMES[c]} | \`${c}\` | ${printed(c, brand)} | ${writes.includes(c) ? "yes" : "no"} | ${names} |`;
    }),
  ];
}

/** The options of the MCP commands, each a section: how it is called, its summary and its parameters. */
function mcpOptions({ brand, commands }) {
  const out = [];
  for (const path of MCP_COMMANDS) {
    const found = commands.find((c) => c.builtin.path.join(" ") === path.join(" "));
    if (found === undefined) throw new Error(`no command ${path.join(" ")}`);
    const { cli } = found;
    out.push(
      `#### \`${brand} ${path.join(" ")}\``,
      "",
      /[.!?]$/.test(cli.summary) ? cli.summary : `${cli.summary}.`,
      "",
      ...parameterTable(cli, false),
      "",
    );
  }
  return out.slice(0, -1);
}

/** Every region's text, by name, as the declarations produce it. */
export async function generatedRegions() {
  const d = await declared();
  return new Map([
    ["admin-commands", adminTable(d).join("\n")],
    ["mcp-clients", clientTable(d).join("\n")],
    ["mcp-options", mcpOptions(d).join("\n")],
  ]);
}

/**
 * `text` (the guide `file`) with each of the regions `names` replaced by
 * its text in `regions`; a region whose markers are missing is an error.
 */
export function withRegions(text, regions, names, file) {
  let out = text;
  for (const name of names) {
    const from = out.indexOf(`${begin(name)}\n`);
    const to = out.indexOf(end(name), from);
    if (from === -1 || to === -1)
      throw new Error(
        `${file}: no region ${name}; expected the lines ${begin(name)} and ${end(name)}`,
      );
    out = `${out.slice(0, from)}${begin(name)}\n${regions.get(name)}\n${out.slice(to)}`;
  }
  return out;
}

/** The guides under `root` whose regions differ from the declarations: `[{ file, regions }]`. */
export async function guideDrift(root) {
  const regions = await generatedRegions();
  const drift = [];
  for (const [file, names] of Object.entries(GUIDES)) {
    const text = readFileSync(`${root}${file}`, "utf8");
    const differ = names.filter((name) => withRegions(text, regions, [name], file) !== text);
    if (differ.length > 0) drift.push({ file, regions: differ });
  }
  return drift;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  if (process.argv.includes("--check")) {
    const drift = await guideDrift(root);
    for (const d of drift)
      console.error(
        `guides: ${d.file}: ${d.regions.join(", ")} differ from the declarations; run pnpm guides`,
      );
    process.exitCode = drift.length === 0 ? 0 : 1;
  } else {
    const regions = await generatedRegions();
    for (const [file, names] of Object.entries(GUIDES)) {
      const text = readFileSync(`${root}${file}`, "utf8");
      const next = withRegions(text, regions, names, file);
      if (next !== text) {
        writeFileSync(`${root}${file}`, next);
        console.log(`guides: wrote ${file}`);
      }
    }
  }
}
