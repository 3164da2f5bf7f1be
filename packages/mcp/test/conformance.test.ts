import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it } from "vitest";
import { cleanup, SERVE } from "./_helpers.js";
import { type Bridge, startBridge } from "./conformance/_bridge.js";
import {
  expectConformance,
  installSuite,
  type SuiteTools,
  TASK_SCENARIOS,
} from "./conformance/_suite.js";
import { conformanceState } from "./conformance/_tasks-fixture.js";

// The official MCP conformance suite against the stdio host, through the
// HTTP bridge under conformance/. Every scenario a protocol revision requires
// runs; the checks listed in conformance/not-applicable.json must fail or
// warn (each with the reason it cannot apply here), every other one must
// pass: a warning counts as a failure. With 2026-07-28 the tasks
// extension's scenarios are judged too, against the suite's task fixtures
// (conformance/_tasks-fixture.ts).
const LIST = fileURLToPath(new URL("./conformance/not-applicable.json", import.meta.url));

let tools: SuiteTools | undefined;
let skipped: string | undefined;
let work: string | undefined;
let bridge: Bridge | undefined;

beforeAll(async () => {
  const got = installSuite();
  if (typeof got === "string") {
    // CI has the registry: there the suite must run.
    if (process.env.CI) throw new Error(got);
    skipped = got;
    console.warn(`conformance suite skipped: ${got}`);
    return;
  }
  tools = got;
  const s = await conformanceState();
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

describe.each(["2026-07-28", "2025-11-25"])("MCP conformance suite, revision %s", (revision) => {
  it("passes every check of every required scenario but the listed ones, which fail", async (ctx) => {
    // Reported as skipped, never as passed, where the suite could not be installed.
    if (skipped !== undefined) ctx.skip(skipped);
    const also = revision === "2026-07-28" ? TASK_SCENARIOS : [];
    await expectConformance(tools!, work!, { url: bridge!.url, revision, also }, [LIST]);
  }, 900_000);
});
