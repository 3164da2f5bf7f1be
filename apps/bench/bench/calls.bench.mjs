// MCP tool calls over real stdio: a trivial command through `rukh mcp serve`
// (validated inputs, a fresh confined-as-configured child over the
// authenticated channel — Node and the runtime started ahead of the call once
// the call repeats, the command's own program loaded when the call gets the
// process — a validated result, a journal record)
// against an MCP SDK server whose tool spawns a node child per call, and the same server
// answering in process, under the host-trusted preset and the strict one
// (each call in bubblewrap; reported as unavailable where it cannot run).
// Targets: a call ≤ 0.35× the spawning SDK server host-trusted, ≤ 0.4×
// strict; calls/s at 8 in flight ≥ 1.0× that server's host-trusted, ≥ 0.8×
// strict.

import { RUKH, state } from "./_fixtures.mjs";
import { sdkServer } from "./_peers.mjs";
import { mcpSession } from "./_rpc.mjs";

const CONCURRENT = 8;
const BURST = 64;

async function call(session, name) {
  const r = await session.request("tools/call", { name, arguments: { name: "x" } });
  if (r.isError) throw new Error(JSON.stringify(r.content));
}

/** Calls per second with `CONCURRENT` calls in flight, over `BURST` calls. */
async function throughput(session, name) {
  const t0 = process.hrtime.bigint();
  let started = 0;
  const worker = async () => {
    while (started < BURST) {
      started++;
      await call(session, name);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, worker));
  return BURST / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/**
 * Medians of `tools/list` answered by `session`: idle, and while a burst of
 * calls runs (a listing every 20 ms): what a client waits for while the host
 * journals and starts other calls' processes.
 */
async function listingUnderLoad(session, name) {
  const idle = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    await session.request("tools/list", {});
    idle.push(performance.now() - t0);
  }
  let done = false;
  const busy = [];
  const burst = throughput(session, name).then(() => {
    done = true;
  });
  while (!done) {
    const t0 = performance.now();
    await session.request("tools/list", {});
    busy.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  await burst;
  return { idle: median(idle), busy: median(busy) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * `rukh mcp serve` under `preset`, once a call of it succeeds; otherwise
 * (strict where bubblewrap cannot run: it refuses to start, or refuses the
 * list and calls) `undefined`, and why is printed.
 */
async function serve(s10, preset) {
  let session;
  try {
    session = await mcpSession(RUKH, ["mcp", "serve", "--preset", preset], s10.env);
    await call(session, s10.tool);
    return session;
  } catch (e) {
    console.log(`calls.bench: rukh mcp serve --preset ${preset} is not measured: ${e.message}`);
    await session?.close();
    return undefined;
  }
}

export default async function calls(suite) {
  const s10 = await state(10, 10);
  const spawning = await mcpSession(process.execPath, [sdkServer(10, true)]);
  const inProcess = await mcpSession(process.execPath, [sdkServer(10, false)]);
  const rukh = await mcpSession(RUKH, ["mcp", "serve", "--preset", "default"], s10.env);
  const strict = await serve(s10, "agent");
  try {
    const group = "calls: MCP tools/call of a trivial command over stdio";
    await suite.compare(group, {
      baseline: [
        "MCP SDK server spawning a node child per call",
        () => call(spawning, "bench_e0_c0"),
      ],
      cases: [
        [
          "rukh mcp serve, host-trusted (a fresh child each, started ahead; validated, journaled)",
          () => call(rukh, s10.tool),
        ],
        ...(strict === undefined
          ? []
          : [["rukh mcp serve, strict (each call in bubblewrap)", () => call(strict, s10.tool)]]),
        ["MCP SDK server answering in process", () => call(inProcess, "bench_e0_c0")],
      ],
      samples: 40,
      note: "targets: host-trusted ≤ 0.35×, strict ≤ 0.4×",
    });
    const peer = [];
    const ours = [];
    const confined = [];
    for (let i = 0; i < 5; i++) {
      peer.push(await throughput(spawning, "bench_e0_c0"));
      ours.push(await throughput(rukh, s10.tool));
      if (strict !== undefined) confined.push(await throughput(strict, s10.tool));
    }
    const g = `calls: calls/s with ${CONCURRENT} in flight (${BURST} calls, higher is better)`;
    suite.report(
      g,
      "MCP SDK server spawning a child per call (baseline)",
      median(peer),
      median(peer),
    );
    suite.report(g, "rukh mcp serve, host-trusted", median(ours), median(peer), "target: ≥ 1.0×");
    if (strict !== undefined)
      suite.report(g, "rukh mcp serve, strict", median(confined), median(peer), "target: ≥ 0.8×");
    const listing = await listingUnderLoad(rukh, s10.tool);
    const l = `calls: tools/list while ${CONCURRENT} calls are in flight`;
    suite.report(l, "rukh mcp serve, idle (baseline)", listing.idle, listing.idle);
    suite.report(
      l,
      "rukh mcp serve, during the burst",
      listing.busy,
      listing.idle,
      "journal flushes run off the event loop; process spawns still block it",
    );
  } finally {
    await Promise.all([spawning.close(), inProcess.close(), rukh.close(), strict?.close()]);
  }
}
