import { describe, expect, it } from "vitest";
import { validateOwnerConfig } from "../../src/config.js";
import { effectiveTaskSupport, presetNamed, StateDirectory } from "../../src/index.js";
import { makePackage, ownerConfig, tempDir, textExecute, toolMachine } from "../_helpers.js";

// Whether a tool's MCP call may run as a task: the publisher's word
// (rukh.extension/3 `task`), an owner's per preset in its place.
const work = tempDir();

const preset = (extra: object = {}) => ({
  commands: ["acme.more/*"],
  actions: [],
  resources: [],
  deadlineMs: 1000,
  maxConcurrency: 2,
  enforcement: "host-trusted",
  ...extra,
});

const command = (id: string, task?: string): object => ({
  id,
  path: [id],
  summary: `Run ${id}`,
  execute: textExecute(),
  machine: toolMachine(),
  ...(task !== undefined && { task }),
});

async function installed() {
  const h = new StateDirectory(tempDir("rukh-task-support-"));
  await h.setConfig(
    ownerConfig({
      presets: {
        default: preset(),
        owned: preset({ tasks: { "acme.more/*": "forbidden", "acme.more/scan": "required" } }),
      },
    }) as never,
  );
  const r = await h.install(
    await makePackage(work, {
      format: "rukh.extension/3",
      id: "acme.more",
      version: "1.0.0",
      publisher: "acme",
      commands: [command("scan", "optional"), command("build", "required"), command("ping")],
    }),
  );
  const config = r.projection.config;
  return (presetName: string, id: string) => {
    const tool = r.projection.tools.find((t) => t.identity === `acme.more/${id}`)!;
    return effectiveTaskSupport(presetNamed(config, presetName)!, tool.identity, tool.task);
  };
}

describe("a tool's task support", () => {
  it("is its publisher's word, forbidden when it says nothing", async () => {
    const support = await installed();
    expect(support("default", "scan")).toBe("optional");
    expect(support("default", "build")).toBe("required");
    expect(support("default", "ping")).toBe("forbidden");
  });

  it("is the owner's for a preset in its place, an identity before its extension's pattern", async () => {
    const support = await installed();
    expect(support("owned", "scan")).toBe("required");
    expect(support("owned", "build")).toBe("forbidden");
    expect(support("owned", "ping")).toBe("forbidden");
  });

  it("refuses an owner's tasks entry that names no command or no value, by pointer", () => {
    const bad = validateOwnerConfig(
      ownerConfig({
        presets: {
          default: preset({ tasks: { "not an id": "optional", "acme.more/scan": "later" } }),
        },
      }) as never,
    );
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issues.map((i) => [i.path, i.code, i.message])).toEqual([
      [
        "/presets/default/tasks/not an id",
        "invalid_identity",
        '"not an id" is not a command identity or "<extension id>/*"',
      ],
      [
        "/presets/default/tasks/acme.more~1scan",
        "invalid_value",
        "expected one of forbidden, optional, required",
      ],
    ]);
  });
});
