// Listing what is installed at 10,000 commands: `rukh tools list` and `rukh
// docs` (whole processes), and an MCP host's first `tools/list` from spawn
// against an MCP SDK server registering the same 10,000 tools. Targets: each
// ≤ 300 ms; host RSS at idle with 10,000 tools ≤ 100 MiB.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { RUKH, run, state } from "./_fixtures.mjs";
import { sdkServer } from "./_peers.mjs";
import { listAll, mcpSession } from "./_rpc.mjs";

const IDLE_MS = 35_000;

const rssMiB = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

async function firstList(file, args, env) {
  const s = await mcpSession(file, args, env);
  const page = await s.request("tools/list");
  if (page.tools.length === 0) throw new Error("empty tool list");
  await s.close();
}

export default async function catalog(suite) {
  const s10k = await state(10_000, 100);
  const s10kx10 = await state(10_000, 10);
  const sdk = sdkServer(10_000, false);
  const NODE = process.execPath;

  await suite.compare("catalog: listing 10,000 commands (whole processes)", {
    baseline: ["node -e ''", () => run(NODE, ["-e", ""])],
    cases: [
      ["rukh tools list (100 per extension)", () => run(RUKH, ["tools", "list"], s10k.env)],
      ["rukh tools list (10 per extension)", () => run(RUKH, ["tools", "list"], s10kx10.env)],
      ["rukh docs (100 per extension)", () => run(RUKH, ["docs"], s10k.env)],
      ["rukh docs (10 per extension)", () => run(RUKH, ["docs"], s10kx10.env)],
      // The first `docs` of a revision renders it; the rest print the kept copy.
      [
        "rukh docs, first after a publication (100 per extension)",
        () => {
          rmSync(join(s10k.root, "cache", "docs"), { recursive: true, force: true });
          run(RUKH, ["docs"], s10k.env);
        },
      ],
    ],
    samples: 10,
    note: "target: ≤ 300 ms",
  });

  await suite.compare("catalog: MCP spawn → initialize → first tools/list, 10,000 tools", {
    baseline: ["MCP SDK 1.32 server (in process)", () => firstList(NODE, [sdk], undefined)],
    cases: [
      [
        "rukh mcp serve (100 per extension)",
        () => firstList(RUKH, ["mcp", "serve", "--preset", "default"], s10k.env),
      ],
      [
        "rukh mcp serve (10 per extension)",
        () => firstList(RUKH, ["mcp", "serve", "--preset", "default"], s10kx10.env),
      ],
    ],
    samples: 10,
    note: "target: ≤ 300 ms",
  });

  // Memory after a client listed everything once: a second later, and once
  // the host has been idle long enough for V8's memory reducer to run (it
  // gives back the young generation a burst of parsing left resident; about
  // 20–30 s without allocation on Node 20). Both servers are listed first,
  // then sampled together, so the wait is paid once.
  const hosts = [];
  for (const [name, file, args, env] of [
    ["rukh mcp serve", RUKH, ["mcp", "serve", "--preset", "default"], s10k.env],
    ["MCP SDK 1.32 server", NODE, [sdk], undefined],
  ]) {
    const s = await mcpSession(file, args, env);
    hosts.push({ name, s, tools: await listAll(s) });
  }
  const group = "catalog: host RSS after listing every tool (MiB, ratio to the 100 MiB target)";
  await sleep(1_000);
  for (const h of hosts) h.soon = rssMiB(h.s.pid);
  await sleep(IDLE_MS - 1_000);
  for (const h of hosts) {
    suite.report(group, `${h.name}, ${h.tools} tools, 1 s after`, h.soon, 100);
    suite.report(
      group,
      `${h.name}, ${h.tools} tools, idle ${IDLE_MS / 1000} s`,
      rssMiB(h.s.pid),
      100,
    );
    await h.s.close();
  }
}
