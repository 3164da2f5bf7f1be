import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDir, tempDir } from "@rukh/testkit";
import { registryMissing, startRegistry, type TestRegistry } from "@rukh/testkit/registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { buildExamples, EXAMPLE_PUB, EXAMPLE_PUBLISHER } from "../scripts/examples.mjs";

// The release and scaffold path through a real npm registry: `pnpm release`
// publishes the workspace's public packages to the registry npm's
// configuration names (here a private one), and a new owner, with a clean
// home and nothing of this repository, runs `npm create rukh-cli@<version>`
// against it, installs, builds and runs the brand, down to one extension call.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const { version } = JSON.parse(
  readFileSync(join(root, "packages/create-rukh-cli/package.json"), "utf8"),
);

const missing = registryMissing();
if (missing !== undefined) console.log(`skipping the registry path: ${missing}`);
const temp = tempDir("rukh-registry-path-");
const owner = join(temp, "owner");
const brand = join(owner, "acme");
let registry: TestRegistry;
let env: Record<string, string>;

beforeAll(async () => {
  if (missing !== undefined) return;
  registry = await startRegistry(join(temp, "registry"));
  mkdirSync(join(owner, "home"), { recursive: true });
  // A fresh shell of the new owner: the registry npm's configuration names, a home of its own.
  env = {
    ...registry.env,
    HOME: join(owner, "home"),
    PATH: `${join(brand, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin`,
    ACME_HOME: join(owner, "acme-state"),
  };
}, 60_000);
afterAll(async () => {
  await registry?.close();
  removeDir(temp);
});

function ok(r: SpawnSyncReturns<string>): SpawnSyncReturns<string> {
  if (r.error !== undefined) throw r.error;
  expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  return r;
}
const sh = (command: string, args: readonly string[], cwd = owner) =>
  ok(spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 300_000 }));

describe.skipIf(missing !== undefined)("through an npm registry", () => {
  it("pnpm release publishes every public package to the registry npm's configuration names", () => {
    const published = ok(
      spawnSync(process.execPath, [join(root, "scripts/release.mjs"), "--publish-current"], {
        cwd: root,
        env: { ...registry.env, PATH: process.env.PATH ?? "/usr/bin:/bin" },
        encoding: "utf8",
        timeout: 300_000,
      }),
    );
    expect(published.stderr).toContain(`release: publishing to ${registry.url}`);
    for (const name of ["@rukh/core", "@rukh/oauth", "create-rukh-cli"]) {
      const view = sh("npm", ["view", `${name}@${version}`, "version"]);
      expect(view.stdout.trim()).toBe(version);
    }
  }, 300_000);

  it("a new owner creates, builds and runs a brand from it, down to an extension call", async () => {
    const examples = await buildExamples(join(temp, "examples"));
    const started = Date.now();
    sh("npm", ["create", "--yes", `rukh-cli@${version}`, "acme"]);
    const pkg = JSON.parse(readFileSync(join(brand, "package.json"), "utf8"));
    expect(pkg.dependencies["@rukh/core"]).toBe(`^${version}`);
    expect(JSON.stringify(pkg)).not.toContain("file:");
    sh("npm", ["install"], brand);
    const installed = Date.now();
    sh("npm", ["run", "build"], brand);
    const built = Date.now();
    expect(sh("acme", ["--help"]).stdout).toContain("(ACME_HOME wins)");
    expect(sh("acme", ["doctor"]).stdout).toContain(`state directory: ${env.ACME_HOME}`);
    sh("acme", ["trust", "add", EXAMPLE_PUB, "--publisher", EXAMPLE_PUBLISHER]);
    sh("acme", ["ext", "install", examples["acme-tools"]]);
    expect(sh("acme", ["acme", "greet", "Ada"]).stdout).toBe("Hello, Ada!");
    const called = Date.now();
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `npm create to the first extension call: ${s(called - started)} (create and install ${s(installed - started)}, build ${s(built - installed)}, help, doctor, trust, install and call ${s(called - built)})`,
    );
    // The brand's Python skeleton names the runtime file it writes.
    const made = sh("acme", [
      "ext",
      "init",
      join(owner, "py-ext"),
      "--id",
      "jane.py",
      "--lang",
      "python",
    ]);
    expect(made.stdout).toContain("bin/rukh_ipc.py");
    expect(made.stdout).not.toContain("acme_ipc");
    expect(existsSync(join(owner, "py-ext", "bin", "rukh_ipc.py"))).toBe(true);
  }, 600_000);

  it("renames the brand from one setting: the bin key of its package.json", () => {
    const manifest = join(brand, "package.json");
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    pkg.bin = { zeta: pkg.bin.acme };
    writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
    sh("npm", ["run", "build"], brand);
    const zeta = { ...env, ZETA_HOME: join(owner, "zeta-state") };
    const run = (args: readonly string[]) =>
      ok(spawnSync(join(brand, "bin/zeta"), args, { cwd: owner, env: zeta, encoding: "utf8" }));
    expect(run(["--version"]).stdout).toBe("zeta 0.1.0\n");
    expect(run(["--help"]).stdout).toMatch(
      /^zeta 0\.1\.0\n\nUsage: zeta <command>[\s\S]*\(ZETA_HOME wins\)/,
    );
    expect(run(["doctor"]).stdout).toContain(`state directory: ${zeta.ZETA_HOME}`);
    const config = JSON.parse(run(["mcp", "config", "--client", "cursor"]).stdout);
    expect(Object.keys(config.mcpServers)).toEqual(["zeta"]);
    // The launcher moved with the name: nothing is left at the old command's file.
    expect(existsSync(join(brand, "bin/acme"))).toBe(false);
    expect(JSON.parse(readFileSync(manifest, "utf8")).bin).toEqual({ zeta: "./bin/zeta" });
    expect(config.mcpServers.zeta.command).toBe(realpathSync(join(brand, "bin/zeta")));
    expect(config.mcpServers.zeta.env).toEqual({ ZETA_HOME: zeta.ZETA_HOME });
    // npm installs the command under the new name.
    const prefix = join(owner, "global");
    sh("npm", ["install", "--global", "--prefix", prefix, brand]);
    const global = ok(
      spawnSync(join(prefix, "bin/zeta"), ["--version"], { env: zeta, encoding: "utf8" }),
    );
    expect(global.stdout).toBe("zeta 0.1.0\n");
  }, 300_000);
});
