import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { StateDirectory } from "@rukh/profile";
import {
  fixtureOwnerConfig,
  fixturePreset,
  fixtureState,
  removeDir,
  writeFixturePackage,
} from "@rukh/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInvocationCore } from "../../src/index.js";

// The strict profile for native programs really confines them with
// bubblewrap: the same program that writes a file when host-trusted cannot
// write it under strict. Runs where bwrap is installed (CI installs it);
// without bwrap the strict call is rejected (tested in core.test.ts).
const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((p) => existsSync(p));

let work: string;
let state: StateDirectory;
let target: string;

beforeAll(async () => {
  const preset = (enforcement: string) =>
    fixturePreset({
      commands: ["fx.native/*"],
      deadlineMs: 10_000,
      maxConcurrency: 1,
      enforcement,
    });
  const made = await fixtureState({
    prefix: "rukh-bwrap-",
    config: fixtureOwnerConfig({
      endpointNamespace: "acme-bwrap",
      exposure: {},
      presets: { default: preset("host-trusted"), strict: preset("strict") },
    }),
    packages: async (dir) => [
      await writeFixturePackage({
        parent: dir,
        descriptor: {
          format: "rukh.extension/2",
          id: "fx.native",
          version: "1.0.0",
          publisher: "acme",
          commands: [
            {
              id: "write",
              path: ["write"],
              summary: "Write the file named by the first argument",
              execute: { mapping: "passthrough", program: "bin/write.sh", runtime: "native" },
            },
          ],
        },
        programs: { "bin/write.sh": '#!/bin/sh\necho confined-test > "$1"\n' },
      }),
    ],
    install: "each",
  });
  work = made.work;
  state = made.state;
  target = join(work, "written-by-the-command");
});

afterAll(() => removeDir(work));

async function run(preset: string) {
  const core = await createInvocationCore({
    state,
    binding: { subject: "t", actor: "bwrap-test", taskAuthorityRef: "t", preset },
  });
  try {
    return await core.invoke({
      command: { identity: "fx.native/write" },
      supplied: { values: new Map() },
      surface: "cli",
      passthroughArgs: [target],
    });
  } finally {
    await core.close();
  }
}

describe.runIf(bwrap !== undefined && spawnSync(bwrap, ["--version"]).status === 0)(
  "strict native under bubblewrap",
  () => {
    it("host-trusted writes where the strict profile cannot", async () => {
      expect(await run("default")).toMatchObject({ outcome: "succeeded" });
      expect(readFileSync(target, "utf8")).toBe("confined-test\n");
      rmSync(target);
      const strict = await run("strict");
      expect(strict).toMatchObject({ outcome: "command_failed", reason: "exit_status" });
      expect(existsSync(target)).toBe(false);
    });
  },
);
