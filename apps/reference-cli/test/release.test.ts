import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDir, tempDir } from "@rukh/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { publicPackages } from "../../../scripts/pack-workspace.mjs";

// What `pnpm release` and `scripts/pack-workspace.mjs` rely on before they
// publish or pack anything.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const temp = tempDir("rukh-release-");
afterAll(() => removeDir(temp));

describe("the release configuration", () => {
  it("moves every public package together: one fixed group names them all", () => {
    const config = JSON.parse(readFileSync(join(root, ".changeset/config.json"), "utf8"));
    expect(config.fixed).toHaveLength(1);
    const fixed = new Set<string>(config.fixed[0]);
    expect(
      publicPackages()
        .map((p) => p.name)
        .filter((name) => !fixed.has(name)),
    ).toEqual([]);
  });
});

/**
 * A clone of this workspace's shape in `dir`: the root manifest, the pack
 * script and two public packages whose `files` name `dist`, built or not.
 */
function workspace(dir: string, state: { installed: boolean; built: boolean }): string {
  mkdirSync(join(dir, "scripts"), { recursive: true });
  cpSync(join(root, "scripts/pack-workspace.mjs"), join(dir, "scripts/pack-workspace.mjs"));
  cpSync(join(root, "package.json"), join(dir, "package.json"));
  writeFileSync(join(dir, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n");
  for (const name of ["json", "core"]) {
    const pkg = join(dir, "packages", name);
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: `@rukh/${name}`, version: "0.1.0", files: ["dist"] }),
    );
    if (state.built) {
      mkdirSync(join(pkg, "dist"));
      writeFileSync(join(pkg, "dist/index.js"), "export {};\n");
    }
  }
  if (state.installed) {
    mkdirSync(join(dir, "node_modules"));
    writeFileSync(join(dir, "node_modules/.modules.yaml"), "{}\n");
  }
  return dir;
}

describe("scripts/pack-workspace.mjs", () => {
  it.each([
    {
      state: { installed: false, built: false },
      says: "the workspace is not installed: run `npx -y pnpm@10.34.9 install --frozen-lockfile` first",
    },
    {
      state: { installed: true, built: false },
      says: "packages/core has no dist (its files field names it): run `npx -y pnpm@10.34.9 turbo run build` first",
    },
  ])("refuses in one line, naming what to run, when $says", ({ state, says }) => {
    const dir = workspace(join(temp, `${state.installed}-${state.built}`), state);
    const r = spawnSync(
      process.execPath,
      [join(dir, "scripts/pack-workspace.mjs"), join(dir, "out")],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
    expect(r.stderr).toBe(`pack-workspace: ${says}\n`);
    expect(r.stdout).toBe("");
    expect(r.status).toBe(1);
  });
});
