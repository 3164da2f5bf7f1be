import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDir } from "@rukh/testkit";
import { runCli } from "@rukh/testkit/cli";
import { afterAll, expect, it } from "vitest";
import { useEchoState } from "./_echo.js";

// A copy of the built CLI's bin and dist without its node_modules: what
// needs no dependency still works, and an extension command fails as an
// incomplete installation (exit 3, naming what is missing), never as a
// state directory that cannot be used.
const at = useEchoState("rukh-cli-incomplete-");
const app = fileURLToPath(new URL("../", import.meta.url));
const copy = mkdtempSync(join(tmpdir(), "rukh-cli-copy-"));
for (const part of ["bin", "dist", "package.json"])
  cpSync(join(app, part), join(copy, part), { recursive: true });
afterAll(() => removeDir(copy));

it("a copy without node_modules says its installation is incomplete, not its state directory", () => {
  const bin = join(copy, "bin/rukh");
  expect(runCli({ bin, args: ["--version"], stateDir: at.root }).status).toBe(0);
  const r = runCli({ bin, args: ["say", "--name", "x"], stateDir: at.root });
  expect(r.status, r.stderr).toBe(3);
  expect(r.stderr).toContain("execution_failed/spawn_failed");
  expect(r.stderr).toContain("this installation is incomplete: @rukh/");
  expect(r.stderr).not.toContain("state_unavailable");
  // The real install runs it.
  expect(runCli({ args: ["say", "--name", "x"], stateDir: at.root }).stdout).toBe("x");
});
