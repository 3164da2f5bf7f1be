import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { parseDescriptor } from "@rukh/descriptor";
import { visibleTools } from "@rukh/profile";
import { DESCRIPTOR_PATH } from "@rukh/profile/package";
import {
  fixtureOwnerConfig,
  fixturePreset,
  fixtureState,
  removeDir,
  writeFixturePackage,
} from "@rukh/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AdmissionInput, admit, targetOf } from "../../src/call/_admission.js";
import { binding } from "../_helpers.js";

// Listing is admission asked early: for any presets and descriptors, a tool
// is listed to a preset exactly when a valid call of it by that preset would
// be admitted (capacity aside), and a command that is not listed is refused.

const ACTIONS = ["compute", "net.connect", "write"];
const RESOURCES = ["home", "net"];

const subset = (of: readonly string[]) => fc.subarray([...of]);
/** True `in10` times in ten: generated commands are mostly candidates for a tool. */
const mostly = (in10: number) => fc.integer({ min: 1, max: 10 }).map((n) => n <= in10);
/** Often all of `of` (a preset that grants everything), else any part of it. */
const oftenAll = (of: readonly string[]) =>
  fc.oneof({ arbitrary: fc.constant([...of]), weight: 2 }, { arbitrary: subset(of), weight: 1 });

/** One generated command: how it runs, whether and how an agent may call it, what it requests. */
const commandArb = fc.record({
  passthrough: mostly(1),
  machine: fc.option(
    fc.record({
      eligible: mostly(9),
      interaction: fc.constantFrom("none", "optional", "required"),
      commandResult: mostly(9),
    }),
    { nil: undefined, freq: 10 },
  ),
  actions: subset(ACTIONS),
  resources: subset(RESOURCES),
});
type GeneratedCommand = typeof commandArb extends fc.Arbitrary<infer T> ? T : never;

/** A descriptor of `id` with one command per generated entry (c0, c1, …). */
function descriptorOf(id: string, commands: readonly GeneratedCommand[]) {
  return {
    format: "rukh.extension/2",
    id,
    version: "1.0.0",
    publisher: "acme",
    commands: commands.map((c, i) => ({
      id: `c${i}`,
      path: [id.slice(3), `c${i}`],
      summary: `Command ${i}`,
      // An optional input (a passthrough program declares none): a call without arguments is valid.
      inputs: c.passthrough
        ? []
        : [{ id: "note", type: "string", maxLength: 16, summary: "A note" }],
      execute: c.passthrough
        ? { mapping: "passthrough", program: "bin/run.mjs", runtime: "node" }
        : { mapping: "managed", program: "bin/run.mjs", runtime: "node", result: { kind: "text" } },
      requests: { actions: c.actions, resources: c.resources },
      ...(!c.passthrough &&
        c.machine !== undefined && {
          machine: {
            eligible: c.machine.eligible,
            interaction: c.machine.interaction,
            requiredFeatures: c.machine.commandResult ? ["rukh.command-result/1"] : [],
          },
        }),
    })),
  };
}

const EXTENSIONS = ["fx.a", "fx.b"];

const scenarioArb = fc
  .record({
    a: fc.array(commandArb, { minLength: 1, maxLength: 5 }),
    b: fc.array(commandArb, { minLength: 1, maxLength: 5 }),
  })
  .chain((commands) => {
    const identities = EXTENSIONS.flatMap((e, x) =>
      (x === 0 ? commands.a : commands.b).map((_, i) => `${e}/c${i}`),
    );
    const patterns = [...EXTENSIONS.map((e) => `${e}/*`), ...identities];
    return fc.record({
      commands: fc.constant(commands),
      exposure: fc.record({
        extensions: oftenAll(EXTENSIONS),
        commands: subset(identities),
      }),
      preset: fc.record({
        commands: fc.oneof(
          { arbitrary: fc.constant(EXTENSIONS.map((e) => `${e}/*`)), weight: 1 },
          { arbitrary: subset(patterns), weight: 1 },
        ),
        actions: oftenAll(ACTIONS),
        resources: oftenAll(RESOURCES),
      }),
    });
  });

describe("listing and admission", () => {
  it("list a tool exactly when a valid MCP call of it would be admitted", async () => {
    // Both sides must be met, or the property holds of nothing.
    const seen = { listed: 0, unlisted: 0 };
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const made = await fixtureState({
          prefix: "rukh-core-listing-",
          config: fixtureOwnerConfig({
            endpointNamespace: "acme-listing",
            exposure: s.exposure,
            presets: {
              default: fixturePreset({ commands: ["fx.a/*", "fx.b/*"], deadlineMs: 1_000 }),
              agent: fixturePreset({ deadlineMs: 1_000, ...s.preset }),
            },
          }),
          packages: async (work) => [
            await writeFixturePackage({
              parent: work,
              descriptor: descriptorOf("fx.a", s.commands.a),
              programs: { "bin/run.mjs": "" },
            }),
            await writeFixturePackage({
              parent: work,
              descriptor: descriptorOf("fx.b", s.commands.b),
              programs: { "bin/run.mjs": "" },
            }),
          ],
          install: "together",
        });
        try {
          const { state, root } = made;
          const revisionId = (await state.activeRevisionId())!;
          const revision = await state.readRevision(revisionId);
          const projection = await state.projection(revisionId);
          const listed = new Set(visibleTools(projection, "agent").map((t) => t.identity));
          for (const extension of revision.extensions) {
            const dir = realpathSync(join(root, "store", extension.digest));
            const parsed = parseDescriptor(readFileSync(join(dir, DESCRIPTOR_PATH)));
            if (!parsed.ok) throw new Error("generated descriptor");
            for (const command of parsed.value.commands) {
              const input: AdmissionInput = {
                request: {
                  command: { identity: command.identity },
                  supplied: { json: {} },
                  surface: "mcp",
                  revisionId,
                },
                binding: binding("agent"),
                activeRevisionId: revisionId,
                revision,
                projection,
                devAllowed: [],
              };
              const target = targetOf(input);
              if ("reject" in target) throw new Error(target.message);
              const decision = admit(input, target, parsed.value, dir);
              const admitted = !("reject" in decision);
              seen[listed.has(command.identity) ? "listed" : "unlisted"]++;
              expect(
                admitted,
                `${command.identity}: ${"reject" in decision ? decision.reject : "admitted"}`,
              ).toBe(listed.has(command.identity));
            }
          }
        } finally {
          removeDir(made.work);
        }
      }),
      { numRuns: 40 },
    );
    expect(seen.listed).toBeGreaterThan(0);
    expect(seen.unlisted).toBeGreaterThan(0);
  }, 240_000);
});
