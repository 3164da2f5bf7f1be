import { fixturePreset } from "@rukh/testkit";
import { mainAndHiddenState } from "@rukh/testkit/extension";
import { MODERN_META } from "@rukh/testkit/mcp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { COMMANDS, cleanup, ownerConfig, PROGRAMS, stdioAnswers, toolNameOf } from "../_helpers.js";

// A running host of a strict preset where strict confinement cannot be had
// (the owner's sandbox.program names no program): tools/list is an explicit
// error saying why, never a list of tools no call could run; a call, if a
// client makes one by an old name, still ends with its journaled refusal.
let s: Awaited<ReturnType<typeof mainAndHiddenState>>;
beforeAll(async () => {
  s = await mainAndHiddenState({
    prefix: "rukh-mcp-strict-list-",
    config: ownerConfig({
      sandbox: { program: "/nonexistent/bwrap" },
      presets: {
        default: fixturePreset({
          commands: ["fx.main/*"],
          deadlineMs: 20_000,
          enforcement: "strict",
        }),
      },
    }),
    commands: COMMANDS,
    programs: PROGRAMS,
  });
});
afterAll(() => cleanup(s.work));

const binding = { subject: "t", actor: "mcp-test", taskAuthorityRef: "test", preset: "default" };

it("answers tools/list with an explicit error naming enforcement_unavailable, in both eras", async () => {
  const name = await toolNameOf(s.state, "fx.main/greet");
  const [modern, init, legacy, call] = await stdioAnswers({ state: s.root, binding }, [
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    },
    { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name, arguments: { name: "x" }, _meta: MODERN_META },
    },
  ]);
  for (const list of [modern, legacy]) {
    expect(list.result).toBeUndefined();
    expect(list.error).toMatchObject({
      code: -32001,
      message: expect.stringContaining(
        "the tools of preset default run strict, and strict confinement is unavailable here",
      ),
      data: { reason: "enforcement_unavailable" },
    });
    expect(list.error.message).toContain("/nonexistent/bwrap");
  }
  expect(init.result.protocolVersion).toBe("2025-11-25");
  expect(call.result.structuredContent).toMatchObject({
    outcome: "rejected",
    reason: "enforcement_unavailable",
  });
});
