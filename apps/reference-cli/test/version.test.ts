import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const bin = fileURLToPath(new URL("../bin/rukh", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

it("prints its version from the built binary", () => {
  expect(execFileSync(bin, ["--version"], { encoding: "utf8" })).toBe(`rukh ${version}\n`);
});

it("rejects unknown arguments with exit code 2 and says what was expected", () => {
  const r = spawnSync(bin, ["--nope"], { encoding: "utf8" });
  expect(r.status).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain("expected --version");
});
