import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { INSPECTOR, type Wire } from "../_helpers.js";
import { pythonMcp } from "../_python.js";
import { finalOf, journaledIds, useRemoteHost } from "./_remote.js";

// Clients that are not ours, over Streamable HTTP against two replicas behind
// nginx, with the test issuer: the Python SDK takes its own token and speaks the 2025
// handshake era (list, call, progress, cancel, refused without a token); the
// MCP Inspector's CLI, handed a token as a header, lists and calls in either
// era, and without one names the endpoint's 401.
const remote = useRemoteHost();

const PYTHON_CLIENT = fileURLToPath(new URL("../fixtures/python_http_client.py", import.meta.url));

/** Runs the Python fixture to its end: each step it printed, its exit code and its stderr. */
function runPython(
  pythonPath: string,
  args: string[],
): Promise<{ steps: Wire[]; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("python3", [PYTHON_CLIENT, ...args], {
      env: { PATH: process.env.PATH ?? "", PYTHONPATH: pythonPath, HOME: remote.work },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    let out = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 100_000) stderr += d.toString("utf8");
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      const lines = out.split("\n").filter((l) => l.trim() !== "");
      for (const l of lines) console.log(`python: ${l.length > 400 ? `${l.slice(0, 400)}…` : l}`);
      resolve({ steps: lines.map((l) => JSON.parse(l)), code, stderr });
    });
  });
}

describe("the Python mcp 2.3.0 client over Streamable HTTP", () => {
  it("is refused without a token, takes its own, lists, calls, hears progress and cancels", async (ctx) => {
    const py = pythonMcp();
    if ("skip" in py) {
      console.warn(`Python mcp client over HTTP skipped: ${py.skip}`);
      ctx.skip(py.skip);
      return;
    }
    const since = await journaledIds(remote.root);
    const { steps, code, stderr } = await runPython(py.path, [
      remote.resource,
      remote.op.issuer,
      remote.greet,
      remote.progress,
      remote.slow,
    ]);
    expect(code, stderr.slice(-3000)).toBe(0);
    const step = (name: string) => steps.find((s) => s.step === name);

    // No token: the endpoint's 401, surfaced as the client's error.
    expect(step("anonymous").refused).toBe(true);
    expect(step("anonymous").messages.join("\n")).toContain(
      "Unauthorized: this endpoint needs a bearer token",
    );

    // Its own token, by client credentials, from the issuer the 401 named; the handshake era.
    expect(step("initialized")).toMatchObject({
      version: "2025-11-25",
      server: "rukh",
      token: true,
    });
    expect(step("listed").names).toEqual(
      expect.arrayContaining([remote.greet, remote.progress, remote.slow]),
    );
    expect(step("called")).toMatchObject({
      isError: false,
      structured: { outcome: "succeeded", commandResult: { text: "hello py" } },
    });

    const { heard, structured } = step("progressed");
    expect(structured).toMatchObject({ outcome: "succeeded" });
    expect(heard.length).toBeGreaterThan(0);
    for (let i = 1; i < heard.length; i++)
      expect(heard[i].progress).toBeGreaterThan(heard[i - 1].progress);

    // Its notifications/cancelled reached the host: the command ended cancelled by the client,
    // long before the preset's 20 s deadline, and the client went on.
    expect(step("cancelled").cancelled).toBe(true);
    expect(await finalOf(remote.root, "fx.main/slow", since)).toMatchObject({
      outcome: "cancelled",
      reason: "client_cancel",
    });
    expect(step("after").tools).toBeGreaterThan(0);
  }, 360_000);
});

const run = promisify(execFile);

/** The Inspector CLI against the endpoint: its JSON output on success, or its exit code and error output. */
async function inspect(
  args: string[],
): Promise<{ ok: true; out: Wire } | { ok: false; code: number; stderr: string; stdout: string }> {
  const home = join(remote.work, "inspector");
  try {
    const { stdout } = await run(
      INSPECTOR,
      [
        "--cli",
        "--transport",
        "http",
        "--server-url",
        remote.resource,
        "--format",
        "json",
        ...args,
      ],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          MCP_CATALOG_PATH: join(home, "catalog.json"),
          MCP_CLIENT_CONFIG_PATH: join(home, "client.json"),
        },
        timeout: 60_000,
      },
    );
    return { ok: true, out: JSON.parse(stdout) };
  } catch (e) {
    const failed = e as { code?: number; stderr?: string; stdout?: string };
    return {
      ok: false,
      code: failed.code ?? -1,
      stderr: failed.stderr ?? String(e),
      stdout: failed.stdout ?? "",
    };
  }
}

describe.each(["legacy", "modern"] as const)(
  "the MCP Inspector CLI over Streamable HTTP, %s era",
  (era) => {
    const bearer = async () => [
      "--header",
      `Authorization: Bearer ${await remote.op.token("alice-agent", remote.resource, "mcp")}`,
      "--protocol-era",
      era,
    ];

    it("lists and calls with the token it is handed as a header", async () => {
      const listed = await inspect([...(await bearer()), "--method", "tools/list"]);
      if (!listed.ok) throw new Error(`tools/list failed (${listed.code}): ${listed.stderr}`);
      expect(listed.out.result.tools.map((t: Wire) => t.name)).toContain(remote.greet);
      const called = await inspect([
        ...(await bearer()),
        "--method",
        "tools/call",
        "--tool-name",
        remote.greet,
        "--tool-arg",
        "name=ins",
      ]);
      if (!called.ok) throw new Error(`tools/call failed (${called.code}): ${called.stderr}`);
      console.log(`inspector (${era}): ${JSON.stringify(called.out.result.structuredContent)}`);
      expect(called.out.result.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { text: "hello ins" },
      });
    }, 120_000);

    it("without a token fails with the endpoint's 401", async () => {
      // --stored-auth-only: no interactive login, so the refusal is what it reports.
      const refused = await inspect([
        "--stored-auth-only",
        "--protocol-era",
        era,
        "--method",
        "tools/list",
      ]);
      expect(refused.ok).toBe(false);
      if (refused.ok) return;
      console.log(
        `inspector (${era}) without a token: exit ${refused.code}: ${refused.stderr.trim()}`,
      );
      const error = JSON.parse(refused.stderr.trim()).error;
      expect(error.code).toBe("auth_required");
      // The handshake era reports the 401's own body; the modern era's probe, its status.
      expect(error.message).toContain(
        era === "legacy"
          ? "Unauthorized: this endpoint needs a bearer token"
          : "the server requires authorization (HTTP 401)",
      );
    }, 120_000);
  },
);
