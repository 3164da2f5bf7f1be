import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { authorWork } from "./_author.js";

// `ext init --lang sh`: a passthrough script, CLI only, that tests,
// validates, links and runs as written, and that no MCP list shows.
const { work, rukh } = authorWork("rukh-cli-shell-");
const pkg = join(work, "sh");

describe("ext init --lang sh", () => {
  it("writes a passthrough script that tests, validates and runs on the CLI, never as a tool", () => {
    const made = rukh("ext", "init", pkg, "--id", "jane.sh", "--lang", "sh");
    expect(made.status, made.stderr).toBe(0);
    expect(existsSync(join(pkg, "node_modules"))).toBe(false);
    expect(existsSync(join(pkg, "rukh-types.d.ts"))).toBe(false);
    const tested = spawnSync("sh", ["test/hello.test.sh"], { cwd: pkg, encoding: "utf8" });
    expect(tested.stdout, tested.stderr).toBe("ok\n");
    expect(rukh("ext", "validate", pkg).status).toBe(0);
    expect(rukh("ext", "link", pkg).status).toBe(0);
    const ran = rukh("sh", "hello", "Ada");
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toBe("Hello, Ada!\n");
    // Its exit status is the command's.
    expect(rukh("sh", "hello").status).toBe(2);
    expect(rukh("expose", "add", "jane.sh").status).toBe(0);
    expect(rukh("tools", "list", "--preset", "default").stdout).toContain("0 tools");
  });
});
