import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stateDirVariable } from "@rukh/profile/route-cache";
import { afterAll, expect, it } from "vitest";
import { BRAND } from "../src/main.js";

// Runs the built binary (the one package.json's bin names) against a fresh state directory.
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const { version } = manifest;
const bin = fileURLToPath(new URL(`../${manifest.bin[BRAND]}`, import.meta.url));
const home = mkdtempSync(join(tmpdir(), `${BRAND}-cli-test-`));
// The brand's own variable names its state directory (RUKH_HOME for rukh, ACME_HOME for acme).
const env = { ...process.env, [stateDirVariable(BRAND)]: home, NO_COLOR: "1" };
afterAll(() => rmSync(home, { recursive: true, force: true }));

it("prints its version", () => {
  expect(execFileSync(bin, ["--version"], { env, encoding: "utf8" })).toBe(`${BRAND} ${version}\n`);
});

it("lists its administrative commands in help", () => {
  const help = execFileSync(bin, ["--help"], { env, encoding: "utf8" });
  for (const words of ["ext install", "trust add", "mcp serve", "tools list", "doctor"]) {
    expect(help).toContain(words.split(" ")[0]);
  }
});

it("answers an unknown command with a usage error on stderr", () => {
  const r = spawnSync(bin, ["definitely-not-a-command"], { env, encoding: "utf8" });
  expect(r.status).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain("definitely-not-a-command");
});

it("reports on a fresh state directory without failing on missing confinement", () => {
  const r = spawnSync(bin, ["doctor"], { env, encoding: "utf8" });
  expect(r.stdout).toContain(home);
  expect(r.stdout).toMatch(/strict profile: (available|unavailable)/);
  expect(r.stdout).toMatch(/host-trusted process trees: (pid-namespace|process-group)/);
  // Nothing published is a new owner's state, not a fault.
  expect(r.stdout).toContain("note  active profile: nothing published yet");
  expect(r.status, r.stdout).toBe(0);
});

it("passes on a state directory that does not exist yet, and creates nothing", () => {
  const missing = join(home, "not-yet");
  const r = spawnSync(bin, ["doctor"], {
    env: { ...env, [stateDirVariable(BRAND)]: missing },
    encoding: "utf8",
  });
  expect(r.stdout).toContain(`note  state directory: ${missing} does not exist yet`);
  expect(r.stdout).not.toContain("ENOENT");
  expect(r.status, r.stdout).toBe(0);
  expect(existsSync(missing)).toBe(false);
});

it("reads no more of a key file than a key can be: a large, endless or missing file is a usage error naming the file and what it should be", () => {
  const big = join(home, "big.pub");
  writeFileSync(big, "A".repeat(5_000));
  for (const file of [big, "/dev/zero"]) {
    const r = spawnSync(bin, ["trust", "add", file, "--publisher", "x"], { env, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `${file} is larger than 1024 bytes; expected a public key file (44 base64 characters)`,
    );
  }
  const missing = join(home, "missing.pub");
  const r = spawnSync(bin, ["trust", "add", missing, "--publisher", "x"], {
    env,
    encoding: "utf8",
  });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain(
    `${missing} does not exist; expected a public key file (44 base64 characters)`,
  );
});
