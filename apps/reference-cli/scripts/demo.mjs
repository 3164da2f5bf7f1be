#!/usr/bin/env node
// The README's main command: one command model, two presentations. Builds the
// example extensions, makes a fresh state directory, trusts the example
// publisher, installs the examples, then runs the same commands through the
// `rukh` CLI and through a real MCP client, and prints both results.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { canonicalJson } from "@rukh/json";
import { buildExamples, EXAMPLE_PUB, EXAMPLE_PUBLISHER } from "./examples.mjs";

const bin = fileURLToPath(new URL("../bin/rukh", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "rukh-demo-"));
const home = join(work, "home");
const env = { ...process.env, RUKH_HOME: home, NO_COLOR: "1" };
const say = (text) => process.stdout.write(`${text}\n`);

function rukh(...args) {
  return execFileSync(bin, args, { env, encoding: "utf8" }).trimEnd();
}

try {
  say(`state directory: ${home}\n`);
  const packages = await buildExamples(join(work, "packages"));
  say(
    `$ rukh trust add ${EXAMPLE_PUB} --publisher ${EXAMPLE_PUBLISHER}\n${rukh("trust", "add", EXAMPLE_PUB, "--publisher", EXAMPLE_PUBLISHER)}`,
  );
  for (const dir of Object.values(packages))
    say(`$ rukh ext install ${dir}\n${rukh("ext", "install", dir)}`);
  for (const args of [
    ["expose", "add", "acme.tools"],
    ["preset", "allow", "default", "--action", "compute"],
    ["preset", "allow", "agent", "acme.tools/*", "--action", "compute"],
  ])
    say(`$ rukh ${args.join(" ")}\n${rukh(...args)}`);

  // The same logical calls, spelled for each surface.
  const calls = [
    {
      identity: "acme.tools/greet",
      cli: ["acme", "greet", "Ada", "--style", "pirate", "--times", "2"],
      mcp: { name: "Ada", style: "pirate", times: 2 },
    },
    {
      identity: "acme.tools/stats",
      cli: [
        "acme",
        "stats",
        "1",
        "2",
        "3.5",
        "--budget",
        "10.00",
        "--labels",
        "x",
        "--labels",
        "y",
      ],
      mcp: { values: [1, 2, 3.5], budget: "10.00", labels: ["x", "y"] },
    },
  ];
  // And the same bad input: both surfaces refuse it before any extension code runs.
  const bad = {
    identity: "acme.tools/stats",
    cli: ["acme", "stats", "1", "--precision", "0x10"],
    mcp: { values: [1], precision: "0x10" },
  };

  const client = new Client(
    { name: "rukh-demo", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StdioClientTransport({
      command: bin,
      args: ["mcp", "serve", "--preset", "agent"],
      env,
      stderr: "ignore",
    }),
  );
  try {
    const { tools } = await client.listTools();
    say(`\nMCP tools for preset "agent" (${tools.length}):`);
    for (const t of tools) say(`  ${t.name}`);
    const nameOf = (identity) => {
      const slug = identity.replace(/[^a-z0-9_-]/g, "_");
      return tools.find((t) => t.name.startsWith(`${slug}__`))?.name;
    };
    for (const call of calls) {
      // The CLI's --json envelope holds the call's outcome envelope, the same object MCP returns.
      const cli =
        JSON.parse(
          rukh("--json", ...call.cli)
            .split("\n")
            .pop() || "{}",
        ).outcome ?? {};
      const name = nameOf(call.identity);
      const mcp =
        name === undefined
          ? { error: "not listed" }
          : (await client.callTool({ name, arguments: call.mcp })).structuredContent;
      const same = canonicalJson(strip(cli)) === canonicalJson(strip(mcp));
      say(`\n== ${call.identity}`);
      say(`CLI  $ rukh ${call.cli.join(" ")}\n     ${JSON.stringify(strip(cli))}`);
      say(`MCP  tools/call ${JSON.stringify(call.mcp)}\n     ${JSON.stringify(strip(mcp))}`);
      say(`same outcome and result: ${same ? "yes" : "NO"}`);
      if (!same) process.exitCode = 1;
    }
    const cli = spawnSync(bin, bad.cli, { env, encoding: "utf8" });
    const mcp = await client.callTool({ name: nameOf(bad.identity), arguments: bad.mcp });
    const refused =
      cli.status === 2 && mcp.isError === true && mcp.structuredContent?.outcome === "rejected";
    say(`\n== ${bad.identity} with a bad integer`);
    say(`CLI  $ rukh ${bad.cli.join(" ")}\n     exit ${cli.status}: ${cli.stderr.split("\n")[0]}`);
    say(
      `MCP  tools/call ${JSON.stringify(bad.mcp)}\n     ${JSON.stringify(strip(mcp.structuredContent))}`,
    );
    say(`both refused it: ${refused ? "yes" : "NO"}`);
    if (!refused) process.exitCode = 1;
  } finally {
    await client.close();
  }
  say(
    `\nCLI only (never MCP tools): "rukh acme confirm" needs a person; "rukh legacy echo" is a rukh.extension/1 command; "rukh args" is a passthrough program:`,
  );
  say(`$ rukh legacy echo one two\n${rukh("legacy", "echo", "one", "two")}`);
  say(
    `$ rukh args --exit 0 -- raw --flags\n${rukh("args", "--exit", "0", "--", "raw", "--flags")}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

// Invocation ids differ per call; everything else must match.
function strip(envelope) {
  if (envelope === null || typeof envelope !== "object") return envelope;
  const { invocationId: _ignored, ...rest } = envelope;
  return rest;
}
