import { listRuns } from "@rukh/core";
import { StateDirectory } from "@rukh/profile";
import { removeDir } from "@rukh/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliBuiltin } from "../../src/index.js";
import { builtinEnd, EXIT_CODES } from "../../src/index.js";
import { makeHome, tempDir } from "../_helpers.js";
import { inProcess } from "../_in-process.js";

// A built-in declared to change state runs as one call of the core: the
// core admits it (the CLI, the owner's own authority), journals its start
// before its work and its one final after, with the revision it published.

const PRESET_INPUT = {
  id: "preset",
  type: "string",
  minLength: 1,
  maxLength: 64,
  positional: 0,
  required: true,
  summary: "The preset",
};

let home: string;
const works: string[] = [];
beforeAll(async () => {
  home = await makeHome();
  works.push(home);
});
afterAll(() => {
  for (const w of works) removeDir(w);
});

/** A `preset touch <preset>` built-in that republishes the configuration and exits `code`; counts its runs. */
function touching(code = 0, changesState: CliBuiltin["changesState"] = true) {
  const counter = { runs: 0 };
  const builtin: CliBuiltin = {
    path: ["preset", "touch"],
    summary: "Touch a preset",
    inputs: [PRESET_INPUT],
    changesState,
    run: async (ctx) => {
      counter.runs++;
      const state = new StateDirectory(ctx.stateDir, {
        ...(ctx.onPublished !== undefined && { onPublished: ctx.onPublished }),
      });
      const revision = await state.readRevision((await state.activeRevisionId())!);
      const config = revision.config as unknown as { presets: Record<string, object> };
      const preset = String(ctx.inputs.preset);
      const deadlineMs = 1_000 + counter.runs + Math.floor(Math.random() * 1000);
      await state.setConfig({
        ...revision.config,
        presets: { ...config.presets, [preset]: { ...config.presets.default, deadlineMs } },
      } as never);
      return code;
    },
  };
  return { builtin, counter };
}

const runsOf = async (root: string) =>
  (await listRuns(root, { limit: 200 })).filter((r) => r.command === "builtin:preset touch");

describe("a built-in that changes state", () => {
  it("is journaled: who, which, the inputs' digest, its outcome and the revision it published", async () => {
    const { builtin, counter } = touching();
    const r = await inProcess(home, { builtins: [builtin] })("preset", "touch", "extra");
    expect(r.code, r.err).toBe(0);
    expect(counter.runs).toBe(1);
    const active = await new StateDirectory(home).activeRevisionId();
    const [run] = await runsOf(home);
    expect(run).toMatchObject({
      surface: "cli",
      actor: "acme-cli",
      taskAuthorityRef: "local",
      outcome: "succeeded",
      reason: "completed",
      published: active,
      inputsDigest: expect.stringMatching(/^sha256:/),
    });
  });

  it("is refused under a task's authority: not run, recorded, exit 4 with the reason", async () => {
    const root = await makeHome();
    works.push(root);
    const { builtin, counter } = touching();
    const run = inProcess(root, { builtins: [builtin], binding: { taskAuthorityRef: "task-7" } });
    const r = await run("preset", "touch", "extra");
    expect(r.code).toBe(EXIT_CODES.rejected);
    expect(r.err).toMatch(
      /not run: .*owner's own authority only, not task task-7 \(rejected\/preset_denied\)/,
    );
    expect(counter.runs).toBe(0);
    expect(await runsOf(root)).toMatchObject([
      { outcome: "rejected", reason: "preset_denied", taskAuthorityRef: "task-7" },
    ]);
    const json = JSON.parse((await run("--json", "preset", "touch", "extra")).out);
    expect(json).toMatchObject({
      command: "preset touch",
      outcome: { outcome: "rejected", reason: "preset_denied" },
    });
  });

  it("keeps its own exit code, and its record says how it ended by the exit-code table", async () => {
    for (const code of [1, 2, 4, 5, 7]) {
      const root = await makeHome();
      works.push(root);
      const { builtin } = touching(code);
      const r = await inProcess(root, { builtins: [builtin] })("preset", "touch", "extra");
      expect(r.code).toBe(code);
      const [run] = await runsOf(root);
      expect(run, String(code)).toMatchObject(builtinEnd(code, false));
    }
    expect(builtinEnd(EXIT_CODES.rejected, false)).toEqual({
      outcome: "command_failed",
      reason: "command_reported",
    });
    expect(builtinEnd(EXIT_CODES.usage, true)).toEqual({
      outcome: "cancelled",
      reason: "owner_cancel",
    });
  });

  it("is journaled only when its declaration says so for these inputs; a read leaves no run", async () => {
    const root = await makeHome();
    works.push(root);
    const { builtin, counter } = touching(0, (inputs) => inputs.preset === "journaled");
    const run = inProcess(root, { builtins: [builtin] });
    expect((await run("preset", "touch", "quiet")).code).toBe(0);
    expect(await runsOf(root)).toEqual([]);
    expect((await run("preset", "touch", "journaled")).code).toBe(0);
    expect(counter.runs).toBe(2);
    expect(await runsOf(root)).toHaveLength(1);
  });

  it("must declare its inputs: one without them is the brand's mistake, named", async () => {
    const root = tempDir();
    works.push(root);
    const broken: CliBuiltin = {
      path: ["wipe"],
      summary: "Wipe",
      changesState: true,
      run: () => 0,
    };
    const r = await inProcess(root, { builtins: [broken] })("wipe");
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/built-in "wipe" changes state but declares no inputs/);
    // Saying it changes nothing needs no inputs.
    const plain: CliBuiltin = {
      path: ["look"],
      summary: "Look",
      changesState: false,
      run: () => 0,
    };
    expect((await inProcess(root, { builtins: [plain] })("look")).code).toBe(0);
  });
});
