import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createResourceServer } from "@rukh/oauth";
import { freePort } from "@rukh/testkit";
import { startIssuer, type TestIssuer } from "@rukh/testkit/issuer";
import { nginxMissing, startNginx } from "@rukh/testkit/nginx";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type McpHttpHost, serveHttp } from "../src/index.js";
import { cleanup } from "./_helpers.js";
import { startRenamer } from "./conformance/_renamer.js";
import {
  expectConformance,
  installSuite,
  type SuiteTools,
  TASK_SCENARIOS,
} from "./conformance/_suite.js";
import { conformanceState } from "./conformance/_tasks-fixture.js";

// The official MCP conformance suite pointed at the HTTP host itself, no
// bridge, for each era the one URL serves: every scenario 2026-07-28
// requires, then every scenario 2025-11-25 requires at that revision's wire
// (an initialize answered with no session, each later POST naming its
// version in MCP-Protocol-Version). The suite sends no credentials, so nginx
// in front adds a real issuer's token to each request, as a gateway holding
// a service token would; the host checks it like any other. The checks
// conformance/not-applicable.json lists for the revision (the same as
// through the stdio bridge), and the ones not-applicable-http.json lists for
// this host alone, must fail or warn, each with its reason; every other one
// must pass, and a warning counts as a failure. The tasks extension's
// scenarios run last, against the suite's task fixtures.
const LIST = fileURLToPath(new URL("./conformance/not-applicable.json", import.meta.url));
const LIST_HTTP = fileURLToPath(new URL("./conformance/not-applicable-http.json", import.meta.url));

let tools: SuiteTools | undefined;
let skipped: string | undefined;
let work: string | undefined;
let nginxDir: string | undefined;
let op: TestIssuer | undefined;
let host: McpHttpHost | undefined;
let lb: Awaited<ReturnType<typeof startNginx>> | undefined;
let renamer: Awaited<ReturnType<typeof startRenamer>> | undefined;
let url = "";

beforeAll(async () => {
  const got = installSuite();
  const missing = typeof got === "string" ? got : nginxMissing();
  if (missing !== undefined) {
    if (process.env.CI) throw new Error(missing);
    skipped = missing;
    console.warn(`HTTP conformance suite skipped: ${missing}`);
    return;
  }
  tools = got as SuiteTools;
  const [front, back] = [await freePort(), await freePort()];
  url = `http://127.0.0.1:${front}/mcp`;
  op = await startIssuer({ resources: [url], scopes: "mcp" });
  const s = await conformanceState();
  work = s.work;
  host = await serveHttp({
    state: s.state,
    resource: url,
    listen: { port: back },
    // The suite also calls the endpoint by its other loopback names.
    allowedHosts: [`localhost:${front}`, `[::1]:${front}`],
    authenticator: createResourceServer({
      resource: url,
      issuer: op.issuer,
      requiredScopes: ["mcp"],
      defaultPreset: "default",
    }),
  });
  nginxDir = mkdtempSync(join(tmpdir(), "rukh-conformance-nginx-"));
  lb = await startNginx(nginxDir, front, [`127.0.0.1:${back}`], {
    Authorization: `Bearer ${await op.token("alice-agent", url, "mcp")}`,
  });
  renamer = await startRenamer(url);
}, 900_000);

afterAll(async () => {
  await renamer?.close();
  await lb?.stop();
  await host?.close();
  await op?.close();
  if (work) cleanup(work);
  if (nginxDir) cleanup(nginxDir);
});

describe.each(["2026-07-28", "2025-11-25"])(
  "MCP conformance suite over Streamable HTTP, revision %s",
  (revision) => {
    it("passes every check of every required scenario but the listed ones, which fail", async (ctx) => {
      if (skipped !== undefined) ctx.skip(skipped);
      await expectConformance(tools!, work!, { url, revision }, [LIST, LIST_HTTP]);
    }, 900_000);
  },
);

// The tasks extension's scenarios, through the renamer (which gives the
// suite's fixture tools the names it calls them by) in front of nginx: each
// by itself, at 2026-07-28's wire. The whole suite runs without it, so that
// the host itself answers the DNS-rebinding scenario's foreign Host.
describe("MCP conformance suite over Streamable HTTP, tasks extension", () => {
  it("passes every check of the tasks scenarios but the listed ones, which fail", async (ctx) => {
    if (skipped !== undefined) ctx.skip(skipped);
    const run = {
      url: renamer!.url,
      revision: "2026-07-28",
      scenarios: "only",
      also: TASK_SCENARIOS,
    } as const;
    await expectConformance(tools!, work!, run, [LIST, LIST_HTTP]);
  }, 900_000);
});
