// The test registry: what the test's scopes publish is served back, and any
// other package is proxied from the registry the machine's npm names.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { removeDir, tempDir } from "../src/index.js";
import { registryMissing, startRegistry, type TestRegistry } from "../src/registry.js";

const missing = registryMissing();
if (missing !== undefined) console.log(`skipped: ${missing}`);
const dir = tempDir("rukh-registry-");
let registry: TestRegistry;

beforeAll(async () => {
  if (missing === undefined) registry = await startRegistry(dir);
}, 60_000);
afterAll(async () => {
  await registry?.close();
  removeDir(dir);
});

it.skipIf(missing !== undefined)(
  "serves what is published to it and proxies the rest",
  async () => {
    const pkg = join(dir, "pkg");
    mkdirSync(pkg);
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "@jane/probe", version: "1.2.3" }),
    );
    const npm = (args: string[], cwd: string) =>
      spawnSync("npm", args, { cwd, env: registry.env, encoding: "utf8", timeout: 120_000 });
    const published = npm(["publish"], pkg);
    expect(published.status, published.stderr).toBe(0);
    const view = npm(["view", "@jane/probe", "version"], dir);
    expect(view.stdout.trim()).toBe("1.2.3");
    const proxied = npm(["view", "is-number@7.0.0", "version"], dir);
    expect(proxied.stdout.trim(), proxied.stderr).toBe("7.0.0");
    // Nothing outside the test's scopes may be published to it.
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "is-number", version: "99.0.0" }),
    );
    expect(npm(["publish"], pkg).status).not.toBe(0);
  },
  180_000,
);
