import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, makeState, SERVE } from "./_helpers.js";
import { type Bridge, startBridge } from "./conformance/_bridge.js";

// The official MCP conformance suite against the stdio host, through the
// HTTP bridge under conformance/. The suite needs Node 22; it runs on the
// npm registry's `node` package of that version, installed beside it, while
// the host stays on this Node. Every scenario a protocol revision requires
// runs; the ones listed in conformance/not-applicable.json must fail (each
// with the reason it cannot apply here), every other one must pass.
const SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const NODE = "node@22.23.3";
const LIST = fileURLToPath(new URL("./conformance/not-applicable.json", import.meta.url));

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

let tools: { node: string; cli: string } | undefined;
let skipped: string | undefined;
let work: string | undefined;
let bridge: Bridge | undefined;

/** Installs the suite and Node 22 once per machine (a folder of the temporary directory). */
function install(): { node: string; cli: string } | string {
  const dir = join(tmpdir(), `rukh-conformance-${SUITE.split("@")[2]}-${NODE.split("@")[1]}`);
  const node = join(dir, "node_modules", "node", "bin", "node");
  const cli = join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  if (!existsSync(node) || !existsSync(cli)) {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync(
      "npm",
      ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", SUITE, NODE],
      { encoding: "utf8", timeout: 600_000 },
    );
    if (r.status !== 0 || !existsSync(node) || !existsSync(cli))
      return `cannot install ${SUITE} and ${NODE} from the npm registry: ${(r.stderr || String(r.error)).slice(-500)}`;
  }
  return { node, cli };
}

beforeAll(async () => {
  const got = install();
  if (typeof got === "string") {
    // CI has the registry: there the suite must run.
    if (process.env.CI) throw new Error(got);
    skipped = got;
    console.warn(`conformance suite skipped: ${got}`);
    return;
  }
  tools = got;
  const s = await makeState();
  work = s.work;
  bridge = await startBridge({
    command: process.execPath,
    args: [SERVE, "default"],
    env: { PATH: process.env.PATH ?? "", RUKH_HOME: s.root },
  });
}, 900_000);

afterAll(async () => {
  await bridge?.close();
  if (work) cleanup(work);
});

/** Runs the suite's CLI with Node 22 (asynchronously: the bridge answers in this process). */
function suite(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(tools!.node, [tools!.cli, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: work! },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      if (stdout.length < 1_000_000) stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 100_000) stderr += d.toString("utf8");
    });
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

/** The server scenarios `revision` requires (the ones it scores). */
async function required(revision: string): Promise<Set<string>> {
  const r = await suite(["list", "--server", "--requirements", revision]);
  const names = new Set<string>();
  let inServer = false;
  for (const line of r.stdout.split("\n")) {
    if (line.startsWith("Server scenarios")) inServer = true;
    else if (line.trim() === "") inServer = false;
    else if (inServer && line.startsWith("  - ")) names.add(line.slice(4).trim());
  }
  if (names.size === 0)
    throw new Error(`the suite listed no server scenarios: ${r.stdout}${r.stderr}`);
  return names;
}

/** Runs every scenario `revision` requires and returns each scenario's checks. */
async function runSuite(revision: string): Promise<Map<string, Check[]>> {
  // Kept for reading after a failure; the temporary directory's cleaner removes it.
  const out = mkdtempSync(join(tmpdir(), `rukh-conformance-${revision}-`));
  console.log(`conformance ${revision}: results in ${out}`);
  const wanted = await required(revision);
  const r = await suite([
    "server",
    "--url",
    bridge!.url,
    "--requirements",
    revision,
    "-o",
    out,
    "--timeout",
    "15000",
  ]);
  const results = new Map<string, Check[]>();
  // One folder per scenario: server-<scenario>-<ISO time>.
  for (const dir of readdirSync(out)) {
    const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    const file = join(out, dir, "checks.json");
    if (wanted.has(scenario) && existsSync(file))
      results.set(scenario, JSON.parse(readFileSync(file, "utf8")));
  }
  const missing = [...wanted].filter((s) => !results.has(s));
  if (missing.length > 0)
    throw new Error(`no results for ${missing.join(", ")}: ${r.stdout.slice(-2000)}\n${r.stderr}`);
  return results;
}

describe.each(["2026-07-28", "2025-11-25"])("MCP conformance suite, revision %s", (revision) => {
  it("passes every check of every required scenario but the listed ones, which fail", async (ctx) => {
    // Reported as skipped, never as passed, where the suite could not be installed.
    if (skipped !== undefined) ctx.skip(skipped);
    const list: Record<string, Record<string, Record<string, string>>> = JSON.parse(
      readFileSync(LIST, "utf8"),
    );
    const expected = list[revision] ?? {};
    const results = await runSuite(revision);
    const failed: string[] = [];
    let checks = 0;
    for (const [scenario, all] of results) {
      // A scenario that checked nothing says nothing.
      expect(all.length, scenario).toBeGreaterThan(0);
      for (const c of all) {
        checks++;
        if (c.status === "FAILURE") failed.push(`${scenario} ${c.id}`);
      }
    }
    const listed = Object.entries(expected).flatMap(([s, ids]) =>
      Object.keys(ids).map((id) => `${s} ${id}`),
    );
    console.log(
      `conformance ${revision}: ${results.size} required scenarios, ${checks} checks, ${failed.length} failed, all ${listed.length} listed as not applicable`,
    );
    const unexpected = failed.filter((f) => !listed.includes(f));
    expect(
      unexpected,
      JSON.stringify(
        unexpected.map((u) => {
          const [s, id] = u.split(" ");
          return results.get(s!)!.find((c) => c.id === id);
        }),
        null,
        2,
      ),
    ).toEqual([]);
    // A listed check that passes is listed for nothing: the list stays honest.
    expect(listed.filter((l) => !failed.includes(l))).toEqual([]);
  }, 900_000);
});
