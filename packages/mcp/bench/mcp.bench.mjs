// MCP host round trips over real stdio, against baselines measured in the same
// run: a `tools/list` page with 10,000 installed commands against a `ping`
// round trip on the same connection, and a `tools/call` of a trivial managed
// command against the bare @rukh/ipc spawn + invoke of the same stored
// program. The state directory is built before anything is timed. Run alone
// with `node packages/mcp/bench/mcp.bench.mjs` or through `pnpm bench mcp`.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInvocationCore } from "@rukh/core";
import { StateDirectory, signPackage } from "@rukh/profile";
import {
  bareIpcInvocation,
  ipcRuntimeUrl,
  FIXTURE_KEY as key,
  lineRpc,
  FIXTURE_PUB as pub,
} from "@rukh/testkit";
import { MODERN_META, TASKS_META } from "@rukh/testkit/mcp";

const EXTENSIONS = 1_000;
const COMMANDS = 10;
const SERVE = fileURLToPath(new URL("../test/fixtures/serve.mjs", import.meta.url));

const PROGRAM = `import { runCommandProcess, textResult } from ${JSON.stringify(ipcRuntimeUrl())};
await runCommandProcess({ handlers: { "bench.noop/noop": () => textResult("ok") } });
`;

const managed = {
  mapping: "managed",
  program: "bin/run.mjs",
  runtime: "node",
  result: { kind: "text" },
};
const machine = {
  eligible: true,
  interaction: "none",
  requiredFeatures: ["rukh.command-result/1"],
};

async function writePackage(dir, descriptor, program) {
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(descriptor));
  writeFileSync(join(dir, "bin", "run.mjs"), program);
  await signPackage(dir, key, { publisher: "acme" });
}

export async function setup() {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "rukh-mcp-bench-")));
  const changes = [];
  for (let i = 0; i < EXTENSIONS; i++) {
    const dir = join(work, "src", `ext${i}`);
    await writePackage(
      dir,
      {
        format: "rukh.extension/2",
        id: `bench.ext${i}`,
        version: "1.0.0",
        publisher: "acme",
        commands: Array.from({ length: COMMANDS }, (_, c) => ({
          id: `cmd${c}`,
          path: [`e${i}`, `cmd${c}`],
          summary: `Command ${c} of extension ${i}`,
          inputs: [
            { id: "name", type: "string", maxLength: 64, summary: "A name", required: true },
            { id: "count", type: "integer", minimum: 0, maximum: 100, summary: "How many" },
          ],
          execute: managed,
          machine,
        })),
      },
      "process.exit(0);\n",
    );
    changes.push({ op: "install", source: dir });
  }
  const noopDir = join(work, "src", "noop");
  await writePackage(
    noopDir,
    {
      format: "rukh.extension/3",
      id: "bench.noop",
      version: "1.0.0",
      publisher: "acme",
      commands: [
        {
          id: "noop",
          path: ["noop"],
          summary: "Nothing",
          inputs: [],
          execute: managed,
          machine,
          task: "optional",
        },
      ],
    },
    PROGRAM,
  );
  changes.push({ op: "install", source: noopDir });
  const ids = [...Array.from({ length: EXTENSIONS }, (_, i) => `bench.ext${i}`), "bench.noop"];
  const state = new StateDirectory(join(work, "home"));
  await state.setConfig({
    brand: "bench",
    endpointNamespace: "bench",
    trustedPublishers: [{ id: "acme", publicKey: pub, namespaces: ["acme.*", "bench.*"] }],
    exposure: { extensions: ids },
    presets: {
      default: {
        commands: ids.map((id) => `${id}/*`),
        actions: [],
        resources: [],
        deadlineMs: 60_000,
        maxConcurrency: 16,
        enforcement: "host-trusted",
      },
    },
    defaultPreset: "default",
    mcp: { toolNames: "compact" },
  });
  const { revision } = await state.apply(changes);
  const projection = await state.projection();
  const noop = projection.tools.find((t) => t.identity === "bench.noop/noop").name;
  const digest = revision.extensions.find((e) => e.id === "bench.noop").digest;
  const program = join(realpathSync(join(state.root, "store", digest)), "bin", "run.mjs");
  return { work, root: state.root, noop, program, tools: projection.tools.length };
}

/** The modern era over the server's stdio: every request carries its `_meta` (`meta`). */
function connect(root, meta = MODERN_META) {
  return lineRpc(
    process.execPath,
    [SERVE, "default"],
    { PATH: process.env.PATH ?? "", RUKH_HOME: root },
    { _meta: meta },
  );
}

/**
 * A task's create answer against the plain call it replaces, over stdio:
 * each sample times `tools/call` from a client that declares the tasks
 * extension until the answer with the task id (the call's start and the task
 * record flushed first), then waits, untimed, for the task to end.
 */
async function taskCreates(tasker, noop, samples) {
  const times = [];
  for (let i = 0; i < samples; i++) {
    const t0 = process.hrtime.bigint();
    const created = await tasker.request("tools/call", { name: noop, arguments: {} });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (created.resultType !== "task") throw new Error(`not a task: ${JSON.stringify(created)}`);
    for (;;) {
      const t = await tasker.request("tasks/get", { taskId: created.taskId });
      if (t.status === "completed") break;
      if (t.status !== "working") throw new Error(`task ended ${t.status}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  return [...times].sort((a, b) => a - b)[times.length >> 1];
}

/**
 * 10,000 pings written at once to a fresh host, read as they come: the time
 * from the write to the last answer, and the host's RSS then.
 */
async function burst(root) {
  const child = spawn(process.execPath, [SERVE, "default"], {
    env: { PATH: process.env.PATH ?? "", RUKH_HOME: root },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const N = 10_000;
  let seen = 0;
  let rest = "";
  let t0 = 0n;
  const done = new Promise((resolve) => {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      const lines = (rest + d).split("\n");
      rest = lines.pop();
      seen += lines.length;
      if (seen === 1 && t0 === 0n) {
        // The first answer is the warm-up ping: the burst starts now.
        t0 = process.hrtime.bigint();
        child.stdin.write(
          Array.from({ length: N }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`).join(
            "",
          ),
        );
      }
      if (seen === N + 1) resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
  });
  child.stdin.write(`{"jsonrpc":"2.0","id":"warm","method":"ping"}\n`);
  const ms = await done;
  const rss =
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024;
  child.stdin.end();
  await new Promise((r) => child.once("exit", r));
  return { ms, rss };
}

export default async function run(suite) {
  const { work, root, noop, program, tools } = await setup();
  const client = connect(root);
  const pinger = lineRpc(process.execPath, [SERVE, "default"], {
    PATH: process.env.PATH ?? "",
    RUKH_HOME: root,
  });
  const core = await createInvocationCore({
    state: new StateDirectory(root),
    binding: { subject: "bench", actor: "bench", taskAuthorityRef: "bench", preset: "default" },
  });
  try {
    const first = await client.request("tools/list");
    if (first.tools.length !== 32 || tools !== 10_001) throw new Error("unexpected projection");
    const cursor = first.nextCursor;
    const list = await suite.compare(`mcp: tools/list page over stdio, ${tools} tools installed`, {
      // The 2026-07-28 era has no ping: the baseline is the earlier era's, on a connection of its own.
      baseline: ["ping round trip (2025-11-25 era)", () => pinger.request("ping")],
      cases: [
        ["tools/list, first page (32 tools)", () => client.request("tools/list")],
        ["tools/list, second page (cursor)", () => client.request("tools/list", { cursor })],
      ],
      samples: 200,
      note: "target: page ≤ 2 ms",
    });
    suite.report(
      `mcp: tools/list page over stdio, ${tools} tools installed`,
      "overhead (first page − ping)",
      list.cases[0] - list.baseline,
    );
    const call = await suite.compare("mcp: tools/call of a trivial managed command", {
      baseline: [
        "bare @rukh/ipc spawn + invoke + completion of the same program",
        () => bareIpcInvocation(program, "bench.noop/noop"),
      ],
      cases: [
        [
          "core.invoke in process, no MCP (the core's share)",
          async () => {
            const o = await core.invoke({
              command: { toolName: noop },
              supplied: { values: new Map() },
              surface: "mcp",
            });
            if (o.outcome !== "succeeded") throw new Error(`${o.outcome}/${o.reason}`);
          },
        ],
        [
          "tools/call over stdio (parse, resolve, decode, core.invoke, envelope)",
          async () => {
            const r = await client.request("tools/call", { name: noop, arguments: {} });
            if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
          },
        ],
      ],
      samples: 40,
      note: "target: overhead ≤ 5 ms",
    });
    suite.report(
      "mcp: tools/call of a trivial managed command",
      "overhead (tools/call median − bare median)",
      call.cases[1] - call.baseline,
    );
    suite.report(
      "mcp: tools/call of a trivial managed command",
      "MCP adapter's share (tools/call median − core.invoke median)",
      call.cases[1] - call.cases[0],
    );
    const tasker = connect(root, TASKS_META);
    try {
      suite.report(
        "mcp: tools/call of a trivial managed command",
        "as a task: until the create answer (start and task record on disk), against the plain call",
        await taskCreates(tasker, noop, 40),
        call.cases[1],
      );
    } finally {
      await tasker.close();
    }
    const bursts = [];
    for (let i = 0; i < 5; i++) bursts.push(await burst(root));
    const mid = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const group =
      "mcp: 10,000 pings in one write from a client that reads (targets: 1,000 ms, 100 MiB)";
    suite.report(group, "until the last answer (ms)", mid(bursts.map((b) => b.ms)), 1_000);
    suite.report(group, "host RSS then (MiB, not ms)", mid(bursts.map((b) => b.rss)), 100);
  } finally {
    await core.close();
    await client.close();
    await pinger.close();
    rmSync(work, { recursive: true, force: true });
  }
}
