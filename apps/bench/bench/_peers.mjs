// The peers, built the way their own users would build them: an oclif 4 CLI
// with one file per command and its manifest (so help never loads command
// files), and MCP TypeScript SDK servers over stdio — one answering tools in
// process, one spawning a node child per call as a command runner would.
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { WORK } from "./_fixtures.mjs";

const require = createRequire(import.meta.url);
/** Where `name` is installed for this package (whatever its `exports` allow). */
const packageDir = (name) => {
  const found = require.resolve
    .paths(name)
    .map((p) => join(p, name))
    .find((d) => existsSync(join(d, "package.json")));
  if (found === undefined) throw new Error(`${name} is not installed; run pnpm install`);
  return realpathSync(found);
};

/** Links `names` into `dir/node_modules`, as an install would. */
function link(dir, names) {
  for (const name of names) {
    const to = join(dir, "node_modules", name);
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(packageDir(name), to);
  }
}

/**
 * An oclif CLI `ocl` with `commands` commands (`e<i> c<j>`, 100 per topic,
 * each with the flags of a bench command) and its manifest; returns its bin.
 */
export async function oclifCli(commands) {
  const dir = join(WORK, `oclif-${commands}`);
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "ocl",
      version: "1.0.0",
      type: "module",
      oclif: { bin: "ocl", dirname: "ocl", commands: "./commands", topicSeparator: " " },
    }),
  );
  link(dir, ["@oclif/core"]);
  for (let c = 0; c < commands; c++) {
    const topic = join(dir, "commands", `e${Math.floor(c / 100)}`);
    mkdirSync(topic, { recursive: true });
    writeFileSync(
      join(topic, `c${c % 100}.js`),
      `import { Command, Flags } from "@oclif/core";
export default class C extends Command {
  static description = "Command ${c % 100} of topic e${Math.floor(c / 100)}";
  static flags = {
    name: Flags.string({ description: "A name" }),
    count: Flags.integer({ description: "How many", default: 1, min: 0, max: 100 }),
    verbose: Flags.boolean({ description: "Say more" }),
  };
  async run() {
    const { flags } = await this.parse(C);
    this.log(flags.name ?? "ok");
  }
}
`,
    );
  }
  const bin = join(dir, "bin", "run.js");
  writeFileSync(
    bin,
    `#!/usr/bin/env node\nimport { execute } from "@oclif/core";\nawait execute({ dir: import.meta.url });\n`,
  );
  // The manifest, as `oclif manifest` writes it: help and routing read it instead of every file.
  const { Config } = await import("@oclif/core");
  const config = await Config.load(dir);
  const manifest = config.getPluginsList().find((p) => p.name === "ocl").manifest;
  if (Object.keys(manifest.commands).length !== commands)
    throw new Error("oclif manifest is short");
  writeFileSync(join(dir, "oclif.manifest.json"), JSON.stringify(manifest));
  return bin;
}

/**
 * An MCP SDK stdio server with `tools` tools shaped like the bench commands;
 * with `spawnChild`, each call runs `node child.mjs` and answers with its output.
 */
export function sdkServer(tools, spawnChild) {
  const dir = join(WORK, `sdk-${tools}-${spawnChild ? "spawn" : "inproc"}`);
  mkdirSync(dir, { recursive: true });
  link(dir, ["@modelcontextprotocol/sdk", "zod"]);
  writeFileSync(join(dir, "child.mjs"), `process.stdout.write("ok");\n`);
  const file = join(dir, "server.mjs");
  writeFileSync(
    file,
    `import { spawn } from "node:child_process";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const server = new McpServer({ name: "peer", version: "1.0.0" });
const child = new URL("./child.mjs", import.meta.url).pathname;
const answer = ${
      spawnChild
        ? `() => new Promise((resolve, reject) => {
  const p = spawn(process.execPath, [child], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  p.stdout.on("data", (d) => (out += d));
  p.once("error", reject);
  p.once("exit", () => resolve({ content: [{ type: "text", text: out }] }));
})`
        : `async () => ({ content: [{ type: "text", text: "ok" }] })`
    };
for (let i = 0; i < ${tools}; i++)
  server.registerTool("bench_e" + Math.floor(i / 100) + "_c" + (i % 100), {
    title: "Command " + i,
    description: "Does the thing " + i + " and prints what it did.",
    inputSchema: {
      name: z.string().max(64).optional(),
      count: z.number().int().min(0).max(100).optional(),
      verbose: z.boolean().optional(),
    },
  }, answer);
await server.connect(new StdioServerTransport());
`,
  );
  return file;
}

/**
 * An MCP SDK 2.x stdio server (`@modelcontextprotocol/server`) listing
 * `tools` as they are given: each `{ name, title, description, annotations?,
 * inputSchema, outputSchema? }`, its schemas handed over as JSON Schema
 * (`fromJsonSchema`), as an author serving the same tools with the SDK would.
 */
export function sdkListingServer(label, tools) {
  const dir = join(WORK, `sdk2-${label}`);
  mkdirSync(dir, { recursive: true });
  link(dir, ["@modelcontextprotocol/server"]);
  writeFileSync(join(dir, "tools.json"), JSON.stringify(tools));
  const file = join(dir, "server.mjs");
  writeFileSync(
    file,
    `import { readFileSync } from "node:fs";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
const tools = JSON.parse(readFileSync(new URL("./tools.json", import.meta.url), "utf8"));
const server = new McpServer({ name: "peer", version: "1.0.0" });
for (const t of tools)
  server.registerTool(t.name, {
    title: t.title,
    description: t.description,
    inputSchema: fromJsonSchema(t.inputSchema),
    ...(t.outputSchema !== undefined && { outputSchema: fromJsonSchema(t.outputSchema) }),
    ...(t.annotations !== undefined && { annotations: t.annotations }),
  }, async () => ({ content: [{ type: "text", text: "ok" }] }));
await server.connect(new StdioServerTransport());
`,
  );
  return file;
}
