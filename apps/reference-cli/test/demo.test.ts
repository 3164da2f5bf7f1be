import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

// The README's main command, end to end: examples built and signed, a fresh
// state directory, trust, install, and the same calls through the CLI and a
// real MCP client with identical outcomes.
it("shows one command model through the CLI and MCP", () => {
  const demo = fileURLToPath(new URL("../scripts/demo.mjs", import.meta.url));
  const r = spawnSync(process.execPath, [demo], { encoding: "utf8", timeout: 120_000 });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout.match(/same outcome and result: yes/g)).toHaveLength(2);
  expect(r.stdout).toContain("both refused it: yes");
  expect(r.stdout).not.toContain("same outcome and result: NO");
  expect(r.stdout).toContain("Ahoy, Ada!");
}, 180_000);
