import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readJournal } from "@rukh/core";
import { removeDir } from "@rukh/testkit";
import { RUKH_BIN, runCli, spawnCli } from "@rukh/testkit/cli";
import { LEGACY_INITIALIZE, MODERN_META } from "@rukh/testkit/mcp";
import { describe, expect, it } from "vitest";
import { useSleeperCli } from "./_sleeper.js";

// `rukh mcp serve` as a client runs it: shutdown and loss as docs/mcp.md
// tables them, with real signals and real pipes.
const { at, env, rukh } = useSleeperCli("rukh-cli-mcp-serve-");

function napTool(): string {
  const list = JSON.parse(rukh("--json", "tools", "list").stdout).result.tools;
  return list.find((t: { identity: string }) => t.identity === "fx.sleep/nap").name;
}

/** `rukh mcp serve <args>` on `stateDir` (the sleeper's by default), its messages read as they come. */
function serve(args: readonly string[] = ["--preset", "default"], stateDir = at.root) {
  const child = spawnCli({ args: ["mcp", "serve", ...args], stateDir });
  const replies: Record<string, unknown>[] = [];
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => {
    out += c.toString("utf8");
    for (let nl = out.indexOf("\n"); nl !== -1; nl = out.indexOf("\n")) {
      replies.push(JSON.parse(out.slice(0, nl)));
      out = out.slice(nl + 1);
    }
  });
  child.stderr!.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  child.stdin!.on("error", () => {});
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on("exit", (code) => resolve({ code, at: Date.now() })),
  );
  const call = (id: string, name: string, args: object) =>
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: MODERN_META } })}\n`,
    );
  /** The first message `pred` holds for, looked for every 50 ms, `tries` times. */
  const waitFor = async (pred: (m: Record<string, unknown>) => boolean, tries = 200) => {
    for (let i = 0; i < tries; i++) {
      const m = replies.find(pred);
      if (m !== undefined) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not seen; stderr: ${err}`);
  };
  const reply = async (id: string) =>
    (await waitFor((m) => m.id === id)) as {
      result: { structuredContent: Record<string, unknown> };
    };
  const send = (line: string) => child.stdin!.write(`${line}\n`);
  return { child, call, send, reply, waitFor, exited, stderr: () => err };
}

/** The naps whose command the journal shows running (a process record), by invocation id. */
async function napsRunning(): Promise<Set<string>> {
  const records = (await readJournal(at.root)).records;
  const naps = new Set(
    records
      .filter((r) => r.type === "start" && r.command === "fx.sleep/nap")
      .map((r) => r.invocationId),
  );
  return new Set(
    records
      .filter((r) => r.type === "process" && naps.has(r.invocationId))
      .map((r) => r.invocationId),
  );
}

/**
 * Waits until a nap not in `before` runs — its process record journaled, a
 * loaded machine may take seconds to get there — then gives its runtime
 * `settleMs` to reach the command's handler; gives its invocation id.
 */
async function napStarted(before: ReadonlySet<string>, settleMs = 0): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const fresh = [...(await napsRunning())].filter((id) => !before.has(id));
    if (fresh.length > 0) {
      await new Promise((r) => setTimeout(r, settleMs));
      return fresh[0]!;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no nap started within 30 s");
}

function outcomeOf(invocationId: unknown) {
  return JSON.parse(rukh("--json", "runs", "show", String(invocationId)).stdout).result.run;
}

describe("rukh mcp serve: shutdown and loss", () => {
  it("answers a call in flight with cancelled/owner_cancel on SIGTERM, logs why it closed, and exits", async () => {
    const before = await napsRunning();
    const s = serve();
    s.call("1", napTool(), { wait_ms: 20_000 });
    await napStarted(before);
    s.child.kill("SIGTERM");
    const r = await s.reply("1");
    expect(r.result.structuredContent).toMatchObject({
      outcome: "cancelled",
      reason: "owner_cancel",
    });
    const { code } = await s.exited;
    expect(code).toBe(0);
    expect(s.stderr()).toContain("rukh mcp: closed (closed)");
    expect(outcomeOf(r.result.structuredContent.invocationId)).toMatchObject({
      outcome: "cancelled",
      reason: "owner_cancel",
    });
  });

  it("exits after closing the transport itself, though the client keeps its pipe open", async () => {
    const s = serve();
    // An incomplete line: the 2 s partial-read deadline closes the transport.
    s.child.stdin!.write(`{"jsonrpc":"2.0",`);
    const { code } = await s.exited;
    expect(code).toBe(5);
    expect(s.stderr()).toContain("rukh mcp: closed (partial_read_timeout)");
  });

  it("exits at once on a second signal", async () => {
    const before = await napsRunning();
    const s = serve();
    // nap ignores its cancel: without the second signal the host would wait out the grace.
    s.call("2", napTool(), { wait_ms: 20_000 });
    // Once in its handler (a runtime cancelled before it gets there ends at once).
    await napStarted(before, 800);
    s.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 100));
    const second = Date.now();
    s.child.kill("SIGTERM");
    const { code, at } = await s.exited;
    expect(code).toBe(143);
    // Far sooner than the nap's 20 s, with room for a loaded machine.
    expect(at - second).toBeLessThan(5_000);
  });

  it("ends a call transport_lost and exits promptly when its client is killed with kill -9", async () => {
    const before = await napsRunning();
    // A real client process between the test and the server: it is the one killed.
    const client = spawn(
      process.execPath,
      [
        "-e",
        `const { spawn } = require("node:child_process");
const s = spawn(process.argv[1], ["mcp", "serve", "--preset", "default"], { stdio: ["pipe", "pipe", "inherit"] });
s.stdout.on("data", () => {});
s.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: "k", method: "tools/call", params: { name: process.argv[2], arguments: { wait_ms: 20000 }, _meta: ${JSON.stringify(MODERN_META)} } }) + "\\n");
console.log(s.pid);
setInterval(() => {}, 1000);`,
        RUKH_BIN,
        napTool(),
      ],
      { env: env(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let err = "";
    client.stderr!.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    const pid = Number(
      await new Promise<string>((resolve) =>
        client.stdout!.once("data", (c: Buffer) => resolve(c.toString("utf8"))),
      ),
    );
    const id = await napStarted(before);
    const killed = Date.now();
    client.kill("SIGKILL");
    // The server is an orphan now: it must notice and end on its own.
    for (;;) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      if (Date.now() - killed > 10_000) throw new Error(`rukh mcp serve still runs: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(Date.now() - killed).toBeLessThan(5_000);
    expect(outcomeOf(id)).toMatchObject({
      outcome: "cancelled",
      reason: "transport_lost",
    });
  });
});

describe("rukh mcp serve --endpoint", () => {
  it("serves with the endpoint's limits and deadline, fixed when it starts", async () => {
    const show = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    const file = join(at.work, "endpoint-tight.json");
    const tight = { preset: "default", deadlineMs: 1_500, limits: { messageMaxBytes: 4_096 } };
    writeFileSync(file, JSON.stringify({ ...show, mcp: { endpoints: { tight } } }));
    expect(rukh("profile", "set-config", file).status).toBe(0);
    const s = serve(["--endpoint", "tight"]);
    try {
      for (let i = 0; i < 600 && !s.stderr().includes("endpoint tight ("); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(s.stderr()).toContain("endpoint tight (preset default, full tool names)");
      // A message the default limit (1 MiB) takes is refused at this endpoint's.
      s.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: "big",
          method: "tools/list",
          params: { pad: "x".repeat(5_000) },
        }),
      );
      // The error of an oversized message has no id: it is the next reply with a null one.
      const big = (await s.reply(null as never)) as unknown as { error: { message: string } };
      expect(big.error.message).toContain("message exceeds 4096 bytes");
      // Editing the endpoint now changes nothing for this process.
      writeFileSync(
        file,
        JSON.stringify({ ...show, mcp: { endpoints: { tight: { preset: "default" } } } }),
      );
      expect(rukh("profile", "set-config", file).status).toBe(0);
      const t0 = Date.now();
      s.call("n", napTool(), { wait_ms: 20_000 });
      const n = await s.reply("n");
      // The preset allows 30 s: the endpoint's 1.5 s ended it.
      expect(Date.now() - t0).toBeLessThan(8_000);
      expect(n.result.structuredContent).toMatchObject({
        outcome: "cancelled",
        reason: "deadline",
      });
    } finally {
      s.child.stdin!.end();
      await s.exited;
    }
  });
});

describe("rukh mcp serve before anything is installed", () => {
  it("serves an empty list, then tells the client to list again when tools are published", async () => {
    const home = mkdtempSync(join(tmpdir(), "rukh-cli-mcp-empty-"));
    const cli = (...args: string[]) => runCli({ args, stateDir: home });
    try {
      const s = serve([], home);
      const send = (m: object) => s.send(JSON.stringify({ jsonrpc: "2.0", ...m }));
      const waitFor = (pred: (m: Record<string, unknown>) => boolean) => s.waitFor(pred, 300);
      send({
        id: 1,
        method: "initialize",
        params: LEGACY_INITIALIZE,
      });
      await waitFor((m) => m.id === 1);
      send({ method: "notifications/initialized" });
      send({ id: 2, method: "tools/list", params: {} });
      expect(await waitFor((m) => m.id === 2)).toMatchObject({ result: { tools: [] } });
      expect(s.stderr()).toContain("nothing is installed yet; serving an empty tool list");

      const pub = fileURLToPath(
        new URL("../../../fixtures/keys/example-publisher.pub", import.meta.url),
      );
      const pkg = join(at.work, readdirSync(at.work).find((n) => n.startsWith("pkg-"))!);
      {
        const r = cli("trust", "add", pub, "--publisher", "acme", "--namespace", "fx.*");
        expect(r.status, r.stderr).toBe(0);
      }
      {
        const r = cli("ext", "install", pkg);
        expect(r.status, r.stderr).toBe(0);
      }
      {
        const r = cli("expose", "add", "fx.sleep");
        expect(r.status, r.stderr).toBe(0);
      }
      {
        const r = cli("preset", "allow", "agent", "fx.sleep/*");
        expect(r.status, r.stderr).toBe(0);
      }
      await waitFor((m) => m.method === "notifications/tools/list_changed");
      send({ id: 3, method: "tools/list", params: {} });
      const listed = (await waitFor((m) => m.id === 3)) as {
        result: { tools: { name: string }[] };
      };
      expect(listed.result.tools.map((t) => t.name)).toEqual([
        expect.stringMatching(/^fx_sleep_nap__/),
      ]);
      s.child.stdin!.end();
      await s.exited;
    } finally {
      removeDir(home);
    }
  });
});
