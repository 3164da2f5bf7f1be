import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publicKeyBase64, StateDirectory, signPackage } from "@rukh/profile";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInvocationCore } from "../src/index.js";

// The strict profile for native programs really confines them with
// bubblewrap: the same program that writes a file when host-trusted cannot
// write it under strict. Runs where bwrap is installed (CI installs it);
// without bwrap the strict call is rejected (tested in core.test.ts).
const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((p) => existsSync(p));
const key = readFileSync(
  new URL("../../../fixtures/keys/example-publisher.key", import.meta.url),
  "utf8",
);

let work: string;
let state: StateDirectory;
let target: string;

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "rukh-bwrap-")));
  target = join(work, "written-by-the-command");
  const pkg = join(work, "pkg");
  mkdirSync(join(pkg, "bin"), { recursive: true });
  writeFileSync(
    join(pkg, "rukh-extension.json"),
    JSON.stringify({
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
    }),
  );
  writeFileSync(join(pkg, "bin", "write.sh"), '#!/bin/sh\necho confined-test > "$1"\n');
  await signPackage(pkg, key, { publisher: "acme" });
  state = new StateDirectory(join(work, "home"));
  const preset = (enforcement: string) => ({
    commands: ["fx.native/*"],
    actions: [],
    resources: [],
    deadlineMs: 10_000,
    maxConcurrency: 1,
    enforcement,
  });
  await state.setConfig({
    brand: "acme",
    endpointNamespace: "acme-bwrap",
    trustedPublishers: [{ id: "acme", publicKey: publicKeyBase64(key) }],
    presets: { trusted: preset("host-trusted"), strict: preset("strict") },
    defaultPreset: "trusted",
  } as never);
  await state.install(pkg);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

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
      expect(await run("trusted")).toMatchObject({ outcome: "succeeded" });
      expect(readFileSync(target, "utf8")).toBe("confined-test\n");
      rmSync(target);
      const strict = await run("strict");
      expect(strict).toMatchObject({ outcome: "command_failed", reason: "exit_status" });
      expect(existsSync(target)).toBe(false);
    });
  },
);
