import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { registryMissing, startRegistry, type TestRegistry } from "@rukh/testkit/registry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorWork } from "../_author.js";

// The author's loop with real npm against a real registry: `ext init --lang
// ts`, a dependency added with npm, `npm run build`, `npm test`, validate,
// sign, `npm publish`, and an owner who fetches the package from the
// registry and installs the tarball npm hands out. The runtime must survive
// every npm step, and the tarball npm publishes must carry exactly the
// signed files.
const { work, rukh } = authorWork("rukh-cli-author-npm-");
const missing = registryMissing();
if (missing !== undefined) console.log(`skipping the author's npm loop: ${missing}`);
const pkg = join(work, "x");
/** A small real package from the registry, with no dependencies of its own. */
const DEPENDENCY = "ms@2.1.3";
let registry: TestRegistry;
let env: Record<string, string>;

beforeAll(async () => {
  if (missing !== undefined) return;
  registry = await startRegistry(join(work, "registry"));
  mkdirSync(join(work, "npm-home"), { recursive: true });
  env = {
    ...registry.env,
    HOME: join(work, "npm-home"),
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
  };
}, 60_000);
afterAll(async () => {
  await registry?.close();
});

function ok(r: SpawnSyncReturns<string>): SpawnSyncReturns<string> {
  if (r.error !== undefined) throw r.error;
  expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  return r;
}
const npm = (args: readonly string[], cwd = pkg) =>
  ok(spawnSync("npm", [...args], { cwd, env, encoding: "utf8", timeout: 300_000 }));
const runtimeJs = () => readFileSync(join(pkg, "node_modules/@rukh/ipc/index.js"));
/** The paths of a .tgz, without npm's `package/` prefix, sorted. */
const tarList = (file: string) =>
  ok(spawnSync("tar", ["-tzf", file], { encoding: "utf8" }))
    .stdout.split("\n")
    .filter((p) => p !== "" && !p.endsWith("/"))
    .map((p) => p.replace(/^package\//, ""))
    .sort();

it("ext init --lang ts pins the TypeScript this project builds with, and bundles the runtime", () => {
  const dir = join(work, "pinned");
  ok(rukh("ext", "init", dir, "--id", "jane.pinned.more", "--lang", "ts"));
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const root = JSON.parse(
    readFileSync(new URL("../../../../package.json", import.meta.url), "utf8"),
  );
  expect(manifest).toMatchObject({
    name: "@jane/pinned.more",
    scripts: { build: "tsc", test: "node --test" },
    dependencies: { "@rukh/ipc": "file:vendor/rukh-ipc-0.1.0.tgz" },
    bundleDependencies: ["@rukh/ipc"],
    devDependencies: { typescript: root.devDependencies.typescript },
  });
  expect(existsSync(join(dir, "vendor/rukh-ipc-0.1.0.tgz"))).toBe(true);
});

describe.skipIf(missing !== undefined)("the TypeScript author's loop with npm", () => {
  it("keeps the runtime through npm install <dependency> and npm ci, then builds and tests", () => {
    ok(rukh("keygen", "jane", "--out", work));
    ok(rukh("ext", "init", pkg, "--id", "jane.x", "--lang", "ts"));
    const initial = runtimeJs();
    npm(["install", "--no-audit", "--no-fund"]);
    const added = npm(["install", "--no-audit", "--no-fund", DEPENDENCY]);
    expect(added.stdout).not.toContain("removed");
    expect(runtimeJs().equals(initial)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    expect(manifest.dependencies.ms).toBe("^2.1.3");
    expect(manifest.bundleDependencies).toEqual(["@rukh/ipc"]);
    npm(["ci", "--no-audit", "--no-fund"]);
    expect(runtimeJs().equals(initial)).toBe(true);
    expect(existsSync(join(pkg, "node_modules/ms/package.json"))).toBe(true);
    npm(["run", "build"]);
    expect(npm(["test"]).stdout).toContain("# pass 1");
    const checked = ok(rukh("ext", "validate", pkg));
    expect(checked.stdout).toContain(
      "runtime: @rukh/ipc 0.1.0, bundled by npm (package.json dependencies and bundleDependencies); the same bytes as this CLI's, which held processes preload",
    );
  }, 600_000);

  it("ships the same signed files through ext pack and npm publish, and installs from the registry", () => {
    ok(rukh("ext", "sign", pkg, "--key", join(work, "jane.key")));
    const packed = join(work, "rukh-pack.tgz");
    ok(rukh("ext", "pack", pkg, "-o", packed));
    npm(["publish"]);
    // The owner fetches the package from the registry, as npm hands it out.
    const fetched = join(work, "fetched");
    mkdirSync(fetched);
    const name = npm(["pack", "@jane/x@0.1.0"], fetched).stdout.trim();
    const tgz = join(fetched, name);
    expect(tarList(tgz)).toEqual(tarList(packed));
    expect(tarList(tgz)).toEqual([
      "README.md",
      "bin/handlers.js",
      "bin/hello.js",
      "node_modules/@rukh/ipc/index.d.ts",
      "node_modules/@rukh/ipc/index.js",
      "node_modules/@rukh/ipc/package.json",
      "package.json",
      "rukh-extension.json",
      "rukh-signature.json",
    ]);
    ok(rukh("trust", "add", join(work, "jane.pub"), "--publisher", "jane"));
    const installed = ok(rukh("ext", "install", tgz));
    expect(installed.stdout).toContain("installed jane.x 0.1.0");
    expect(ok(rukh("x", "hello", "Ada")).stdout).toBe("Hello, Ada!\n");
  }, 600_000);

  it("keeps the JavaScript skeleton's runtime through npm install <dependency> too", () => {
    const js = join(work, "js");
    ok(rukh("ext", "init", js, "--id", "jane.js"));
    expect(npm(["install", "--no-audit", "--no-fund", DEPENDENCY], js).stdout).not.toContain(
      "removed",
    );
    expect(npm(["test"], js).stdout).toContain("# pass 1");
    expect(ok(rukh("ext", "validate", js)).stdout).toContain(
      "runtime: @rukh/ipc 0.1.0, bundled by npm",
    );
  }, 300_000);

  it("says when the package carries no runtime npm would publish", () => {
    const manifestFile = join(pkg, "package.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    delete manifest.bundleDependencies;
    const unbundled = join(work, "unbundled");
    ok(spawnSync("cp", ["-r", pkg, unbundled], { encoding: "utf8" }));
    writeFileSync(join(unbundled, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const r = rukh("ext", "validate", unbundled);
    expect(r.status).toBe(4);
    expect(r.stdout).toContain('imports "@rukh/ipc", which the package does not contain');
    expect(r.stdout).toContain(
      "runtime: none — npm leaves node_modules/ out of what it publishes unless package.json lists @rukh/ipc in dependencies",
    );
  });
});
