import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { authorWork } from "../_author.js";

// `ext test` from the built CLI: a package's commands through the real core,
// in a throw-away state directory with a throw-away key, checked case by case.
const { work, rukh } = authorWork("rukh-cli-ext-test-");
const pkg = join(work, "hello");
const cases = (list: object[]) => {
  const file = join(work, "cases.json");
  writeFileSync(file, JSON.stringify(list));
  return file;
};
const greets = {
  name: "greets Ada",
  command: "hello",
  inputs: { name: "Ada" },
  expect: { outcome: "succeeded", commandResult: { kind: "text", text: "Hello, Ada!\n" } },
};

describe("ext test", () => {
  it("runs each case through the core, and fails on the first outcome that differs", () => {
    expect(rukh("ext", "init", pkg, "--id", "jane.hello").status).toBe(0);
    const before = readdirSync(pkg).sort();
    const refused = {
      name: "refuses an empty name",
      command: "jane.hello/hello",
      inputs: { name: "" },
      surface: "mcp",
      expect: { outcome: "rejected", reason: "invalid_input" },
    };
    const passing = rukh("ext", "test", pkg, "--cases", cases([greets, refused]));
    expect(passing.status, passing.stderr).toBe(0);
    expect(passing.stdout).toContain("installed jane.hello@0.1.0 (1 command)");
    expect(passing.stdout).toContain(
      "ok   greets Ada\nok   refuses an empty name\n2 of 2 cases passed",
    );

    const wrong = {
      ...greets,
      name: "expects a farewell",
      expect: { commandResult: { kind: "text", text: "Bye" } },
    };
    const failing = rukh("--json", "ext", "test", pkg, "--cases", cases([greets, wrong]));
    expect(failing.status).toBe(4);
    const result = JSON.parse(failing.stdout).result;
    expect(result).toMatchObject({ passed: 1, failed: 1 });
    expect(result.cases[1].failures[0]).toContain(
      'commandResult: expected {"kind":"text","text":"Bye"}',
    );
    // Nothing was signed or written in the package, and no profile of the user's was made.
    expect(readdirSync(pkg).sort()).toEqual(before);
    expect(readdirSync(work)).not.toContain("home");
  });

  it("names the pointer of a wrong case, and refuses a package an install would", () => {
    const bad = rukh("ext", "test", pkg, "--cases", cases([{ ...greets, surface: "http" }]));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('/0/surface: expected "cli" or "mcp"');
    const unknown = rukh(
      "ext",
      "test",
      pkg,
      "--cases",
      cases([{ ...greets, expect: { text: "x" } }]),
    );
    expect(unknown.stderr).toContain("/0/expect/text: expected one of outcome, reason");
    const noCommand = rukh("ext", "test", pkg, "--cases", cases([{ ...greets, command: "bye" }]));
    expect(noCommand.status).toBe(2);
    expect(noCommand.stderr).toContain(
      '/0/command: the package declares no command "jane.hello/bye"',
    );
  });
});
