// Packs every public workspace package the way `pnpm publish` would
// (workspace: ranges replaced by versions) into `dest`, and returns
// { name → tarball path }. Used by the pack-and-import and scaffold tests.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Public packages under packages/: [{ name, dir }]. */
export function publicPackages() {
  return readdirSync(join(root, "packages"))
    .map((d) => ({
      dir: join(root, "packages", d),
      manifest: JSON.parse(readFileSync(join(root, "packages", d, "package.json"), "utf8")),
    }))
    .filter((p) => !p.manifest.private)
    .map((p) => ({ name: p.manifest.name, dir: p.dir }));
}

/** @returns {Map<string, string>} */
export function packWorkspace(dest) {
  const tarballs = new Map();
  for (const p of publicPackages()) {
    const out = execFileSync("pnpm", ["pack", "--pack-destination", dest], {
      cwd: p.dir,
      encoding: "utf8",
    });
    const file = out.trim().split("\n").pop().trim();
    tarballs.set(p.name, isAbsolute(file) ? file : join(dest, file));
  }
  return tarballs;
}
