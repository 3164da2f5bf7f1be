import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type InvocationOutcome, listRuns, openInvocationHost, readJournal } from "../src/index.js";
import { call, openCore, useCores } from "./_helpers.js";

const { at, core } = useCores();

async function journalOf(id: string) {
  return (await readJournal(at.root)).records.filter((r) => r.invocationId === id);
}

describe("managed calls run to one outcome", () => {
  it("runs a text command on MCP and journals start then final", async () => {
    const o = await (await core("default")).invoke(call("fx.main/hello", { name: "Ada" }));
    expect(o).toMatchObject({
      outcome: "succeeded",
      reason: "completed",
      commandResult: { kind: "text", text: "hello Ada" },
      revisionId: await at.state.activeRevisionId(),
    });
    expect((await journalOf(o.invocationId)).map((r) => r.type)).toEqual([
      "start",
      "process",
      "final",
    ]);
    const log = readFileSync(o.diagnostics.logFile!, "utf8");
    expect(log).toContain(o.invocationId);
    expect(log).toContain("greeting Ada");
  });

  it("runs the same command on the CLI surface", async () => {
    const o = await (await core("default")).invoke(
      call("fx.main/hello", { name: "Bo" }, { surface: "cli" }),
    );
    expect(o.commandResult).toEqual({ kind: "text", text: "hello Bo" });
  });

  it("validates a structured result against the pinned declaration", async () => {
    const o = await (await core("default")).invoke(call("fx.main/count", { n: 3 }));
    expect(o).toMatchObject({
      outcome: "succeeded",
      commandResult: { kind: "structured", data: { total: 3 } },
    });
  });

  it("resolves an MCP tool name in the pinned revision", async () => {
    const projection = await at.state.projection();
    const tool = projection.tools.find((t) => t.identity === "fx.main/hello")!;
    const o = await (await core("default")).invoke({
      command: { toolName: tool.name },
      supplied: { values: new Map([["name", "Cy"]]) },
      surface: "mcp",
      revisionId: projection.revisionId,
    });
    expect(o.commandResult).toEqual({ kind: "text", text: "hello Cy" });
  });

  it("reports a deliberate failure as command_failed with its safe message", async () => {
    const o = await (await core("default")).invoke(call("fx.main/fail"));
    expect(o).toMatchObject({
      outcome: "command_failed",
      reason: "command_reported",
      message: "nothing to do here",
    });
  });

  it("validates the result a failure carries as a success's: a valid one is kept, one that misses its declaration is invalid_result", async () => {
    const failing = async (result: object) => {
      const c = await openCore(at.state, "default", {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          RUKH_TEST_FAIL_RESULT: JSON.stringify(result),
        },
      });
      try {
        return await c.invoke(call("fx.main/fail"));
      } finally {
        await c.close();
      }
    };
    expect(await failing({ kind: "text", text: "partial" })).toMatchObject({
      outcome: "command_failed",
      reason: "command_reported",
      commandResult: { kind: "text", text: "partial" },
    });
    const invalid = await failing({ kind: "structured", data: { total: -1 } });
    expect(invalid).toMatchObject({ outcome: "execution_failed", reason: "invalid_result" });
    expect(invalid.commandResult).toBeUndefined();
  });

  it("runs passthrough programs on the CLI with their exit status", async () => {
    const c = await core("default");
    const ok = await c.invoke(call("fx.main/pt", {}, { surface: "cli", passthroughArgs: ["0"] }));
    expect(ok).toMatchObject({ outcome: "succeeded", reason: "completed" });
    const bad = await c.invoke(call("fx.main/pt", {}, { surface: "cli", passthroughArgs: ["7"] }));
    expect(bad).toMatchObject({ outcome: "command_failed", reason: "exit_status", exitCode: 7 });
  });

  it("runs an optional-interaction command over MCP, its attempt to ask answered as on the CLI: stdin is closed", async () => {
    const c = await core("default");
    for (const surface of ["mcp", "cli"] as const)
      expect(await c.invoke(call("fx.main/optional", {}, { surface }))).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "no one to ask: stdin is closed" },
      });
  });

  it("lets the CLI reach an installed command the MCP surface does not expose", async () => {
    const o = await (await core("default")).invoke(
      call("fx.hidden/secret", {}, { surface: "cli" }),
    );
    expect(o.outcome).toBe("succeeded");
  });
});

describe("diagnostics", () => {
  it("counts log frames against the per-invocation cap", async () => {
    const c = await openCore(at.state, "default", { diagnosticsMaxBytes: 4 });
    try {
      const o = await c.invoke(call("fx.main/hello", { name: "Ada" }));
      expect(o.outcome).toBe("succeeded");
      expect(o.diagnostics.droppedBytes).toBe("greeting Ada".length);
      expect(readFileSync(o.diagnostics.logFile!, "utf8")).toContain(`"droppedBytes":12`);
    } finally {
      await c.close();
    }
  });
});

describe("rejections spawn nothing", () => {
  const cases: [string, string, () => Promise<InvocationOutcome>][] = [
    [
      "invalid_input",
      "missing input",
      async () => (await core("default")).invoke(call("fx.main/hello")),
    ],
    [
      "invalid_input",
      "wrong type",
      async () => (await core("default")).invoke(call("fx.main/count", { n: "three" })),
    ],
    [
      "not_found",
      "unknown command",
      async () => (await core("default")).invoke(call("fx.main/nope")),
    ],
    [
      "not_found",
      "unknown extension",
      async () => (await core("default")).invoke(call("fx.nope/x")),
    ],
    [
      "not_found",
      "unknown tool name",
      async () =>
        (await core("default")).invoke({
          command: { toolName: `fx_main_hello__${"0".repeat(64)}` },
          supplied: { values: new Map() },
          surface: "mcp",
        }),
    ],
    [
      "not_exposed",
      "installed but not exposed on MCP",
      async () => (await core("default")).invoke(call("fx.hidden/secret")),
    ],
    [
      "preset_denied",
      "command outside the preset",
      async () => (await core("narrow")).invoke(call("fx.main/count", { n: 1 })),
    ],
    [
      "preset_denied",
      "requested action not allowed",
      async () => (await core("default")).invoke(call("fx.main/greedy")),
    ],
    [
      "interaction_required",
      "interaction required on MCP",
      async () => (await core("default")).invoke(call("fx.main/interactive")),
    ],
    [
      "passthrough_cli_only",
      "passthrough on MCP",
      async () => (await core("default")).invoke(call("fx.main/pt")),
    ],
    [
      "enforcement_unavailable",
      "strict without a sandbox program",
      async () => {
        const none = await openCore(at.state, "strict", { sandboxProgram: null });
        try {
          return await none.invoke(call("fx.main/hello", { name: "x" }));
        } finally {
          await none.close();
        }
      },
    ],
    [
      "obsolete_revision",
      "name resolved in an older revision",
      async () =>
        (await core("default")).invoke(
          call("fx.main/hello", { name: "x" }, { revisionId: "0".repeat(64) }),
        ),
    ],
  ];
  it.each(cases)("%s: %s", async (reason, _what, run) => {
    const o = await run();
    expect(o).toMatchObject({ outcome: "rejected", reason });
    expect(o.diagnostics).toEqual({ stdoutBytes: 0, stderrBytes: 0, droppedBytes: 0 });
    const records = await journalOf(o.invocationId);
    expect(records.map((r) => r.type)).toEqual(["final"]);
    if (reason === "invalid_input") expect(o.issues!.length).toBeGreaterThan(0);
    else expect(o.issues).toBeUndefined();
  });

  it("rejects calls after close with core_closed", async () => {
    const c = await openCore(at.state);
    await c.close();
    expect(await c.invoke(call("fx.main/hello", { name: "x" }))).toMatchObject({
      outcome: "rejected",
      reason: "core_closed",
    });
  });
});

describe("one core, many bindings", () => {
  it("journals each call under the binding it was made for, and admits by that binding's preset", async () => {
    const host = await core("default");
    const bob = host.bound({
      subject: "bob",
      actor: "ci",
      taskAuthorityRef: "jti-1",
      preset: "narrow",
    });
    expect(bob.binding).toEqual({
      subject: "bob",
      actor: "ci",
      taskAuthorityRef: "jti-1",
      preset: "narrow",
    });
    const ok = await bob.invoke(call("fx.main/hello", { name: "Bo" }));
    expect(ok.outcome).toBe("succeeded");
    const [start] = await journalOf(ok.invocationId);
    expect(start).toMatchObject({
      type: "start",
      subject: "bob",
      actor: "ci",
      taskAuthorityRef: "jti-1",
      preset: "narrow",
    });
    // narrow allows hello only; the host's own binding (default) allows count.
    expect((await bob.invoke(call("fx.main/count", { n: 1 }))).reason).toBe("preset_denied");
    expect((await host.invoke(call("fx.main/count", { n: 1 }))).outcome).toBe("succeeded");
    expect(() =>
      host.bound({ subject: "", actor: "ci", taskAuthorityRef: "t", preset: "narrow" }),
    ).toThrow(/binding\.subject/);
  });

  it("opens with no binding of its own: a host runs a call only under the binding it is bound to", async () => {
    const host = await openInvocationHost({ state: at.state });
    try {
      expect("invoke" in host).toBe(false);
      expect("binding" in host).toBe(false);
      const ann = host.bound({
        subject: "ann",
        actor: "http",
        taskAuthorityRef: "jti-2",
        preset: "narrow",
      });
      const ok = await ann.invoke(call("fx.main/hello", { name: "An" }));
      expect(ok.outcome).toBe("succeeded");
      const [start] = await journalOf(ok.invocationId);
      expect(start).toMatchObject({
        subject: "ann",
        actor: "http",
        taskAuthorityRef: "jti-2",
        preset: "narrow",
      });
    } finally {
      await host.close();
    }
  });

  it("counts concurrency per preset, not per core", async () => {
    const host = await core("default");
    const pair = host.bound({ subject: "p", actor: "ci", taskAuthorityRef: "t", preset: "pair" });
    const slow = () => pair.invoke(call("fx.main/slow", { wait_ms: 800 }));
    const running = [slow(), slow()];
    await new Promise((r) => setTimeout(r, 200));
    // pair allows 2 at once: a third is refused, while the default preset still runs.
    expect((await slow()).reason).toBe("concurrency_limit");
    expect((await host.invoke(call("fx.main/hello", { name: "Di" }))).outcome).toBe("succeeded");
    expect((await Promise.all(running)).map((o) => o.outcome)).toEqual(["succeeded", "succeeded"]);
  });
});

describe("a refused call names its caller", () => {
  it("journals the binding on the final record of a call refused before it started", async () => {
    const host = await core("default");
    const eve = host.bound({
      subject: "eve",
      actor: "ci",
      taskAuthorityRef: "jti-9",
      preset: "narrow",
    });
    const denied = await eve.invoke(call("fx.main/count", { n: 1 }));
    expect(denied.reason).toBe("preset_denied");
    // JSON arguments that do not decode: refused by the core, before anything started.
    const refused = await eve.invoke({
      command: { identity: "fx.main/hello" },
      supplied: { json: { name: 7 } },
      surface: "mcp",
    });
    expect(refused).toMatchObject({
      reason: "invalid_input",
      message: "the arguments do not match the tool's input schema",
    });
    for (const o of [denied, refused]) {
      const records = await journalOf(o.invocationId);
      expect(records.map((r) => r.type)).toEqual(["final"]);
      expect(records[0]).toMatchObject({
        by: { subject: "eve", actor: "ci", taskAuthorityRef: "jti-9", preset: "narrow" },
      });
    }
    const runs = listRuns(at.root, { limit: 5 });
    expect((await runs).find((r) => r.invocationId === denied.invocationId)).toMatchObject({
      subject: "eve",
      preset: "narrow",
    });
  });
});
