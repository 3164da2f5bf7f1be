import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { exposedState, fixturePreset, removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, expect, it } from "vitest";
import { jobsDescriptor } from "../_sleeper.js";

// A command's word on running as an MCP task (rukh.extension/3 `task`), and
// an owner's per preset in its place, as `tools list` and `docs` show them.
const at = { root: "", work: "" };
beforeAll(async () => {
  const made = await exposedState({
    prefix: "rukh-cli-task-",
    endpointNamespace: "acme-cli-task",
    presets: {
      default: fixturePreset({ commands: ["fx.jobs/*"], deadlineMs: 10_000 }),
      owned: fixturePreset({ commands: ["fx.jobs/*"], deadlineMs: 10_000 }),
    },
    packages: [
      {
        descriptor: jobsDescriptor(true),
        programs: { "bin/nap.mjs": "" },
      },
    ],
  });
  Object.assign(at, made);
});
afterAll(() => removeDir(at.work));
const rukh = (...args: string[]) => runCli({ args, stateDir: at.root });

it("tools list and docs show each tool's task support: the publisher's, else never", () => {
  const listed = rukh("--json", "tools", "list").stdout;
  const tools = JSON.parse(listed).result.tools as { identity: string; task: string }[];
  expect(Object.fromEntries(tools.map((t) => [t.identity, t.task]))).toEqual({
    "fx.jobs/nap": "optional",
    "fx.jobs/wait": "required",
    "fx.jobs/ping": "forbidden",
  });
  const human = rukh("tools", "list").stdout;
  expect(human).toContain("(fx.jobs/nap) [task: optional]");
  expect(human).toContain("(fx.jobs/wait) [task: required]");
  expect(human).toMatch(/\(fx\.jobs\/ping\)\n/);
  const docs = rukh("docs").stdout;
  expect(docs).toContain("Task: optional (runs as a task when the client takes one).");
  expect(docs).toContain("Task: required (runs as a task only).");
  expect(docs).toContain("Task: forbidden (runs as a task never).");
});

it("an owner's preset decides in the publisher's place, an identity before its extension's pattern", () => {
  const config = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
  config.presets.owned.tasks = { "fx.jobs/*": "forbidden", "fx.jobs/ping": "required" };
  const file = join(at.work, "owned.json");
  writeFileSync(file, JSON.stringify(config));
  const set = rukh("profile", "set-config", file);
  expect(set.status, set.stderr).toBe(0);
  const tools = JSON.parse(rukh("--json", "tools", "list", "--preset", "owned").stdout).result
    .tools as { identity: string; task: string }[];
  expect(Object.fromEntries(tools.map((t) => [t.identity, t.task]))).toEqual({
    "fx.jobs/nap": "forbidden",
    "fx.jobs/wait": "forbidden",
    "fx.jobs/ping": "required",
  });
  // The default preset keeps the publisher's word.
  expect(rukh("tools", "list").stdout).toContain("(fx.jobs/nap) [task: optional]");
});
