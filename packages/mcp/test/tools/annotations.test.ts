import { MODERN_META } from "@rukh/testkit/mcp";
import { expect, it } from "vitest";
import { ownerConfig, stdioAnswers, useState, type Wire } from "../_helpers.js";

// The annotations a listed tool carries are its binding's preset's: the
// publisher's hints or the owner's for that preset, and openWorldHint false
// wherever the preset is strict.
const at = useState();

async function listFor(preset: string): Promise<Wire[]> {
  const [list] = await stdioAnswers(
    { state: at.root, binding: { subject: "s", actor: "a", taskAuthorityRef: "t", preset } },
    [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } }],
  );
  return list.result.tools;
}

it("lists each tool with its preset's annotations, and none where nobody gave one", async () => {
  const base = ownerConfig() as { presets: Record<string, object> };
  const boxed = {
    commands: ["fx.main/*"],
    actions: [],
    resources: [],
    deadlineMs: 20_000,
    maxConcurrency: 4,
    enforcement: "strict",
    hints: { "fx.main/greet": { readOnly: true, idempotent: true } },
  };
  await at.state.setConfig({ ...base, presets: { ...base.presets, boxed } } as never);
  const plain = await listFor("default");
  for (const t of plain) expect(t).not.toHaveProperty("annotations");
  const strict = await listFor("boxed");
  expect(strict.length).toBeGreaterThan(1);
  const greet = (t: Wire) => t.name.startsWith("main_greet__");
  expect(strict.filter(greet)).toHaveLength(1);
  for (const t of strict)
    expect(t.annotations).toEqual(
      greet(t)
        ? { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
        : { openWorldHint: false },
    );
});
