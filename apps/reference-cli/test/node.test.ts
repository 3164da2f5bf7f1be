import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixturePreset, removeDir } from "@rukh/testkit";
import { RUKH_BIN, runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TESTED_NODE_LINES } from "../src/admin/doctor/index.js";
import { sleeperState } from "./_sleeper.js";

// The built binary on the Node that runs this suite (CI runs it on each
// release line): the gate refuses what cannot work in one line, doctor and a
// strict call agree on the permission model this Node has, and a Node whose
// model cannot be found gets strict Node commands refused, never run
// unconfined.
const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].some((p) => {
  try {
    return spawnSync(p, ["--version"]).status === 0;
  } catch {
    return false;
  }
});
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
/** The flag this Node's documentation names for its permission model. */
const expectedFlag =
  major >= 23 || (major === 22 && minor >= 13) ? "--permission" : "--experimental-permission";

let work: string;
let root: string;
beforeAll(async () => {
  ({ work, root } = await sleeperState({
    prefix: "rukh-cli-node-",
    defaultMs: 1,
    maxConcurrency: 4,
    config: {
      presets: {
        default: fixturePreset({
          commands: ["fx.sleep/*"],
          deadlineMs: 30_000,
          enforcement: "strict",
        }),
      },
    },
  }));
});
afterAll(() => removeDir(work));

/** The built CLI on this Node, with `preload` required first when given. */
function rukh(args: readonly string[], preload?: string) {
  return runCli({
    via: [process.execPath, ...(preload === undefined ? [] : ["--require", preload])],
    args,
    stateDir: root,
    env: { NO_COLOR: "1" },
  });
}

/** A file required before the CLI that changes what the process says of itself. */
function preload(name: string, code: string): string {
  const file = join(work, `${name}.cjs`);
  writeFileSync(file, code);
  return file;
}

describe(`the built CLI on Node ${process.version}`, () => {
  it("is a release line every package declares and doctor knows as tested", () => {
    const engines = (path: string) =>
      JSON.parse(readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8")).engines.node;
    const declared: string = engines("../package.json");
    const lines = declared.split(" || ").map((range) => Number(/^\^(\d+)\./.exec(range)?.[1]));
    expect(lines).toEqual([...TESTED_NODE_LINES]);
    for (const pkg of ["core", "ipc", "cli", "mcp", "profile", "create-rukh-cli"])
      expect(engines(`../../../packages/${pkg}/package.json`), pkg).toBe(declared);
    const doctor = rukh(["doctor"]);
    expect(doctor.stdout).toContain(`ok    node: ${process.version} (`);
  });

  it("lets a newer, untested release line run, and doctor says it is untested", () => {
    const newer = preload(
      "newer",
      `Object.defineProperty(process, "versions", { value: { ...process.versions, node: "27.0.0" } });
Object.defineProperty(process, "version", { value: "v27.0.0" });`,
    );
    expect(rukh(["--version"], newer).status).toBe(0);
    expect(rukh(["doctor"], newer).stdout).toContain(
      `note  node: v27.0.0 (${process.execPath}) is not a release line Rukh is tested on (20, 22, 24, 26); it may work, but nothing proves it`,
    );
  });

  it.runIf(bwrap)(
    `doctor and a strict Node call agree: Node's permission model, with ${expectedFlag}`,
    () => {
      const doctor = rukh(["doctor"]);
      expect(doctor.stdout).toMatch(/^ok {4}strict profile: available: bubblewrap/m);
      expect(doctor.stdout).toContain(
        `ok    strict Node commands: available: Node ${process.version}'s permission model (${expectedFlag}) inside the sandbox`,
      );
      const call = rukh(["--json", "nap"]);
      expect(call.status, call.stdout + call.stderr).toBe(0);
      expect(JSON.parse(call.stdout).outcome).toMatchObject({ outcome: "succeeded" });
    },
  );

  it.runIf(bwrap)(
    "refuses strict Node calls when this Node's permission model cannot be found, and doctor says the same",
    () => {
      // The process hides both spellings of the flag, as a Node without the model would.
      const hidden = preload(
        "no-permission",
        `const flags = [...process.allowedNodeEnvironmentFlags].filter((f) => !f.endsWith("-permission"));
Object.defineProperty(process, "allowedNodeEnvironmentFlags", { value: new Set(flags) });
`,
      );
      const reason = `Node ${process.version} has no permission model (it accepts neither --permission nor --experimental-permission)`;
      const doctor = rukh(["doctor"], hidden);
      expect(doctor.stdout).toContain(
        `note  strict Node commands: unavailable, strict Node commands will be rejected: ${reason}`,
      );
      const call = rukh(["--json", "nap"], hidden);
      expect(call.status, call.stdout).toBe(4);
      expect(JSON.parse(call.stdout).outcome).toMatchObject({
        outcome: "rejected",
        reason: "enforcement_unavailable",
        diagnostic: { message: expect.stringContaining(reason) },
      });
    },
  );

  it.each([
    [
      "a Node older than 20.19",
      `Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.18.3" } });
Object.defineProperty(process, "version", { value: "v20.18.3" });`,
      "rukh: Node.js v20.18.3 is too old; rukh needs Node.js 20.19 or later (20.19+, 22.12+, 24 or 26)",
    ],
    [
      "a line-22 Node older than 22.12",
      `Object.defineProperty(process, "versions", { value: { ...process.versions, node: "22.11.0" } });
Object.defineProperty(process, "version", { value: "v22.11.0" });`,
      "rukh: Node.js v22.11.0 is too old; rukh needs Node.js 20.19 or later (20.19+, 22.12+, 24 or 26)",
    ],
    [
      "Windows",
      `Object.defineProperty(process, "platform", { value: "win32" });`,
      "rukh: Windows is not supported; run rukh under WSL 2 (Linux) or on macOS",
    ],
  ])("refuses %s at once, in one line, before loading anything", (name, code, line) => {
    const log = join(work, "required.log");
    const exitHook = `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(log)}, Object.keys(require.cache).join("\\n")));\n`;
    const r = rukh(["--version"], preload(name.replaceAll(" ", "-"), exitHook + code));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${line}\n`);
    const required = readFileSync(log, "utf8").split("\n");
    expect(required.filter((f) => f.includes("reference-cli"))).toEqual([
      RUKH_BIN,
      join(RUKH_BIN, "..", "node-gate.cjs"),
    ]);
  });
});
