// The official MCP conformance suite, run from a test: installed once per
// machine on the npm registry's Node 22 (the host stays on this Node), the
// scenarios a protocol revision requires run against a URL, and the checks
// compared with a list of the ones that cannot apply here, each with why.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";

const SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const NODE = "node@22.23.3";

export interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

export interface SuiteTools {
  readonly node: string;
  readonly cli: string;
}

/** Installs the suite and Node 22 once per machine (a folder of the temporary directory), or says why it cannot. */
export function installSuite(): SuiteTools | string {
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

/** Runs the suite's CLI with Node 22 (asynchronously: a server in this process answers it). */
function suite(
  tools: SuiteTools,
  home: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(tools.node, [tools.cli, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: home },
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
async function required(tools: SuiteTools, home: string, revision: string): Promise<Set<string>> {
  const r = await suite(tools, home, ["list", "--server", "--requirements", revision]);
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

/**
 * The scenarios of the tasks extension Rukh is judged by (the suite runs
 * them with 2026-07-28 but does not score them): all but
 * tasks-status-notifications, which the suite itself skips, checking nothing.
 */
export const TASK_SCENARIOS: readonly string[] = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
];

/** What {@link expectConformance} runs at a URL. */
export interface Run {
  readonly url: string;
  readonly revision: string;
  /**
   * `required` (default): every scenario the revision requires, and
   * `also` from the same run; `only`: just the scenarios `also` names,
   * each run by itself at the revision's wire.
   */
  readonly scenarios?: "required" | "only";
  readonly also?: readonly string[];
}

/** Runs what `run` names and returns each scenario's checks. */
async function runSuite(tools: SuiteTools, home: string, run: Run): Promise<Map<string, Check[]>> {
  const { url, revision } = run;
  // Kept for reading after a failure; the temporary directory's cleaner removes it.
  const out = mkdtempSync(join(tmpdir(), `rukh-conformance-${revision}-`));
  console.log(`conformance ${revision} at ${url}: results in ${out}`);
  const also = run.also ?? [];
  const only = run.scenarios === "only";
  const wanted = only
    ? new Set(also)
    : new Set([...(await required(tools, home, revision)), ...also]);
  const common = ["server", "--url", url, "-o", out, "--timeout", "15000"];
  const runs = only
    ? also.map((s) => ["--scenario", s, "--spec-version", revision, "--force"])
    : [["--requirements", revision]];
  let printed = "";
  for (const args of runs) {
    const r = await suite(tools, home, [...common, ...args]);
    printed += `${r.stdout.slice(-2000)}\n${r.stderr}`;
  }
  const results = new Map<string, Check[]>();
  // One folder per scenario: server-<scenario>-<ISO time>.
  for (const dir of readdirSync(out)) {
    const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    const file = join(out, dir, "checks.json");
    if (wanted.has(scenario) && existsSync(file))
      results.set(scenario, JSON.parse(readFileSync(file, "utf8")));
  }
  const missing = [...wanted].filter((s) => !results.has(s));
  if (missing.length > 0) throw new Error(`no results for ${missing.join(", ")}: ${printed}`);
  return results;
}

/** What a list file holds: for each revision, each scenario's listed checks and why each cannot pass. */
type Listed = Record<string, Record<string, Record<string, string>>>;

/**
 * A check that did not pass. The suite reports a SHOULD it saw broken (a
 * tools/list whose order changed between calls, a scenario it could not run
 * for want of a session) as a WARNING and does not count it; here it counts
 * as a failure like any other, so it must be fixed or listed with its reason.
 */
const failedCheck = (c: Check) => c.status === "FAILURE" || c.status === "WARNING";

/**
 * Every check of every scenario `run` names passes at its URL, but the
 * ones the files `lists` name for it, which must fail or warn (a listed
 * check that passes is listed for nothing). A scenario that neither passed
 * nor failed any check (all of them INFO or SKIPPED) fails too: it tested
 * nothing.
 */
export async function expectConformance(
  tools: SuiteTools,
  home: string,
  run: Run,
  lists: readonly string[],
): Promise<void> {
  const { url, revision } = run;
  const results = await runSuite(tools, home, run);
  // What the lists say of the scenarios that ran.
  const listed = new Map<string, string>();
  for (const file of lists) {
    const list: Listed = JSON.parse(readFileSync(file, "utf8"));
    for (const [scenario, ids] of Object.entries(list[revision] ?? {}))
      if (results.has(scenario))
        for (const [id, reason] of Object.entries(ids)) listed.set(`${scenario} ${id}`, reason);
  }
  const failed: string[] = [];
  const untested: string[] = [];
  let checks = 0;
  let warnings = 0;
  let passedScenarios = 0;
  let listedScenarios = 0;
  for (const [scenario, all] of results) {
    // A scenario that checked nothing says nothing.
    expect(all.length, scenario).toBeGreaterThan(0);
    const mine = all.filter(failedCheck).map((c) => `${scenario} ${c.id}`);
    checks += all.length;
    warnings += all.filter((c) => c.status === "WARNING").length;
    failed.push(...mine);
    if (mine.length > 0) {
      if (mine.every((f) => listed.has(f))) listedScenarios++;
    } else if (all.some((c) => c.status === "SUCCESS")) passedScenarios++;
    else untested.push(scenario);
  }
  const unexpected = failed.filter((f) => !listed.has(f));
  console.log(
    `conformance ${revision} at ${url}: ${results.size} scenarios: ` +
      `${passedScenarios} passed, ${listedScenarios} not applicable (every failed check listed), ` +
      `${results.size - passedScenarios - listedScenarios} failed; ` +
      `${checks} checks, ${failed.length} failed (${warnings} of them warnings), ${listed.size} listed`,
  );
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
  expect(untested, "scenarios whose checks were all INFO or SKIPPED").toEqual([]);
  expect(
    [...listed.keys()].filter((l) => !failed.includes(l)),
    "listed checks that passed",
  ).toEqual([]);
}
