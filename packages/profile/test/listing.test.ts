import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listTools, type ProfileError, StateDirectory, visibleTools } from "../src/index.js";
import { makePackage, ownerConfig, tempDir } from "./_helpers.js";

// What a preset is shown is what it could run: a tool whose requested
// actions or resources the preset does not grant is never listed.
const work = tempDir();

const RUNS = {
  execute: {
    mapping: "managed",
    program: "bin/run.mjs",
    runtime: "node",
    result: { kind: "text" },
  },
};
const machine = (interaction = "none") => ({
  eligible: true,
  interaction,
  requiredFeatures: ["rukh.command-result/1"],
});

/** A command of acme.files with what it requests and how it may interact. */
function command(
  id: string,
  over: {
    actions?: string[];
    resources?: string[];
    interaction?: string;
    description?: string;
  } = {},
) {
  return {
    id,
    path: [id],
    summary: `Run ${id}`,
    ...(over.description !== undefined && { description: over.description }),
    inputs: [],
    ...RUNS,
    requests: { actions: over.actions ?? [], resources: over.resources ?? [] },
    machine: machine(over.interaction),
  };
}

const preset = (over: object = {}) => ({
  commands: ["acme.files/*"],
  actions: [],
  resources: [],
  deadlineMs: 1000,
  maxConcurrency: 2,
  enforcement: "strict",
  ...over,
});

const config = (over: Record<string, unknown> = {}) =>
  ownerConfig({
    exposure: { extensions: ["acme.files"] },
    presets: {
      default: preset(),
      granted: preset({ actions: ["compute"], resources: ["net"] }),
      computing: preset({ actions: ["compute"] }),
      none: preset({ commands: [] }),
    },
    ...over,
  });

/** A configuration as `setConfig` takes it. */
const published = (over: Record<string, unknown> = {}) => config(over) as never;

async function installed(commands: object[], over: Record<string, unknown> = {}) {
  const root = tempDir("rukh-listing-");
  const home = new StateDirectory(root);
  await home.setConfig(published(over) as never);
  const source = await makePackage(work, {
    format: "rukh.extension/2",
    id: "acme.files",
    version: "1.0.0",
    publisher: "acme",
    commands,
  });
  const { revisionId } = await home.install(source);
  return { root, home, revisionId };
}

const visible = (p: Parameters<typeof visibleTools>[0], preset: string) =>
  visibleTools(p, preset)
    .map((t) => t.identity.slice("acme.files/".length))
    .sort();

describe("listing is admission asked early", () => {
  it("lists a tool only for a preset that grants every action and resource it requests, from the catalog and from the store alike", async () => {
    const { root, home, revisionId } = await installed([
      command("plain"),
      command("computes", { actions: ["compute"] }),
      command("fetches", { resources: ["net"] }),
      command("both", { actions: ["compute"], resources: ["net"] }),
      command("maybe", { interaction: "optional" }),
      command("person", { interaction: "required" }),
    ]);
    const expected = {
      default: ["maybe", "plain"],
      computing: ["computes", "maybe", "plain"],
      granted: ["both", "computes", "fetches", "maybe", "plain"],
      none: [],
    };
    const check = async (state: StateDirectory) => {
      const projection = await state.projection(revisionId);
      for (const [name, tools] of Object.entries(expected))
        expect(visible(projection, name), name).toEqual(tools);
    };
    // As published, then as another process reads the catalog, then from the store.
    await check(home);
    await check(new StateDirectory(root));
    rmSync(join(root, "revisions", `${revisionId}.catalog.json`));
    await check(new StateDirectory(root));
  });

  it("binds cursors to what the preset is shown: granting an action changes the listing's binding", async () => {
    const { home } = await installed(
      Array.from({ length: 40 }, (_, i) =>
        command(`c${i}`, i % 2 === 0 ? { actions: ["compute"] } : {}),
      ),
    );
    const projection = await home.projection();
    const cursorKey = await home.cursorKey();
    expect(visibleTools(projection, "default")).toHaveLength(20);
    expect(visibleTools(projection, "computing")).toHaveLength(40);
    const first = listTools(projection, { preset: "computing", cursorKey });
    expect(first.nextCursor).toBeDefined();
    let caught: unknown;
    try {
      listTools(projection, { preset: "default", cursorKey, cursor: first.nextCursor! });
    } catch (e) {
      caught = e;
    }
    expect((caught as ProfileError).code).toBe("stale_cursor");
  });
});
