import { describe, expect, it } from "vitest";
import { validateOwnerConfig } from "../../src/config.js";
import { type McpTool, StateDirectory, type ToolProjection } from "../../src/index.js";
import { toolAnnotations } from "../../src/projection/_annotations.js";
import { makePackage, ownerConfig, tempDir, textExecute, toolMachine } from "../_helpers.js";

// A tool's MCP annotations: the publisher's hints (rukh.extension/3), an
// owner's per preset in their place, and over both what the preset's
// enforcement proves: a strict command has no network.
const work = tempDir();

const preset = (enforcement: "strict" | "host-trusted", extra: object = {}) => ({
  commands: ["acme.files/*"],
  actions: [],
  resources: [],
  deadlineMs: 1000,
  maxConcurrency: 2,
  enforcement,
  ...extra,
});

function command(id: string, hints?: object): object {
  return {
    id,
    path: [id],
    summary: `Run ${id}`,
    execute: textExecute(),
    machine: toolMachine(),
    ...(hints !== undefined && { hints }),
  };
}

const OWNER_HINTS = {
  "acme.files/*": { idempotent: false },
  "acme.files/plain": { readOnly: true },
};

async function projected(): Promise<{ projection: ToolProjection; tool: (id: string) => McpTool }> {
  const h = new StateDirectory(tempDir("rukh-annotations-"));
  await h.setConfig(
    ownerConfig({
      presets: {
        default: preset("strict"),
        trusted: preset("host-trusted"),
        owned: preset("host-trusted", { hints: OWNER_HINTS }),
      },
    }) as never,
  );
  const r = await h.install(
    await makePackage(work, {
      format: "rukh.extension/3",
      id: "acme.files",
      version: "1.0.0",
      publisher: "acme",
      commands: [
        command("look", { readOnly: true, idempotent: true }),
        command("wipe", { destructive: true, openWorld: true }),
        command("plain"),
      ],
    }),
  );
  return {
    projection: r.projection,
    tool: (id) => r.projection.tools.find((t) => t.identity === `acme.files/${id}`)!,
  };
}

describe("tool annotations", () => {
  it("carry the publisher's hints under a host-trusted preset, and none where there are none", async () => {
    const { projection, tool } = await projected();
    expect(toolAnnotations(projection, "trusted", tool("look"))).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(toolAnnotations(projection, "trusted", tool("wipe"))).toEqual({
      destructiveHint: true,
      openWorldHint: true,
    });
    expect(toolAnnotations(projection, "trusted", tool("plain"))).toBeUndefined();
  });

  it("say openWorldHint false under a strict preset whatever the publisher says: the sandbox has no network", async () => {
    const { projection, tool } = await projected();
    expect(toolAnnotations(projection, "default", tool("wipe"))).toEqual({
      destructiveHint: true,
      openWorldHint: false,
    });
    expect(toolAnnotations(projection, "default", tool("plain"))).toEqual({ openWorldHint: false });
    expect(toolAnnotations(projection, "default", tool("look"))).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it("take an owner's hints for a preset in place of the publisher's, an identity before its extension's pattern", async () => {
    const { projection, tool } = await projected();
    expect(toolAnnotations(projection, "owned", tool("plain"))).toEqual({ readOnlyHint: true });
    expect(toolAnnotations(projection, "owned", tool("look"))).toEqual({ idempotentHint: false });
    // Another preset keeps the publisher's word.
    expect(toolAnnotations(projection, "trusted", tool("look"))).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
    });
  });

  it("refuses an owner's hints that name no command, no hint, or contradict themselves, by pointer", () => {
    const bad = validateOwnerConfig(
      ownerConfig({
        presets: {
          default: preset("strict", {
            hints: {
              "not an identity": { readOnly: true },
              "acme.files/a": { readonly: true },
              "acme.files/b": { openWorld: "no" },
              "acme.files/c": { readOnly: true, destructive: true },
              "acme.files/d": true,
            },
          }),
        },
      }) as never,
    );
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.issues.map((i) => [i.path, i.code])).toEqual([
      ["/presets/default/hints/not an identity", "invalid_identity"],
      ["/presets/default/hints/acme.files~1a/readonly", "unknown_member"],
      ["/presets/default/hints/acme.files~1b/openWorld", "invalid_value"],
      ["/presets/default/hints/acme.files~1c/destructive", "invalid_value"],
      ["/presets/default/hints/acme.files~1d", "expected_object"],
    ]);
  });
});
