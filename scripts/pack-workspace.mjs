// Packs every public workspace package the way `pnpm publish` would
// (workspace: ranges replaced by versions) into `dest`, and returns
// { name → tarball path }. Used by the pack-and-import and scaffold tests.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
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
    .map((p) => ({ name: p.manifest.name, dir: p.dir, files: p.manifest.files ?? [] }));
}

/**
 * Why the workspace cannot be packed as it is, in one line naming what to
 * run, or `undefined` when it can: packing before the install fails on its
 * `workspace:` ranges, and packing before the build ships no `dist`.
 */
export function notPackable() {
  const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager;
  if (!existsSync(join(root, "node_modules", ".modules.yaml")))
    return `the workspace is not installed: run \`npx -y ${pinned} install --frozen-lockfile\` first`;
  for (const p of publicPackages()) {
    const absent = p.files.find((f) => !existsSync(join(p.dir, f)));
    if (absent !== undefined)
      return `${relative(root, p.dir)} has no ${absent} (its files field names it): run \`npx -y ${pinned} turbo run build\` first`;
  }
  return undefined;
}

/**
 * pnpm as the workspace pins it: the one on PATH when there is one (as
 * under `pnpm test`), else fetched by npx at the version `packageManager`
 * names, so plain `node scripts/pack-workspace.mjs` works too.
 */
export function pnpm() {
  try {
    execFileSync("pnpm", ["--version"], { stdio: "ignore" });
    return ["pnpm"];
  } catch {
    const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager;
    return ["npx", "-y", pinned];
  }
}

/** @returns {Map<string, string>} */
export function packWorkspace(dest) {
  const why = notPackable();
  if (why !== undefined) throw new Error(why);
  const tarballs = new Map();
  const [command, ...pre] = pnpm();
  for (const p of publicPackages()) {
    const out = execFileSync(command, [...pre, "pack", "--pack-destination", dest], {
      cwd: p.dir,
      encoding: "utf8",
    });
    const file = out.trim().split("\n").pop().trim();
    tarballs.set(p.name, isAbsolute(file) ? file : join(dest, file));
  }
  return tarballs;
}

// `node scripts/pack-workspace.mjs <dir>`: the tarballs, one `name file` per line.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2];
  if (dest === undefined) {
    process.stderr.write("usage: node scripts/pack-workspace.mjs <directory for the tarballs>\n");
    process.exit(2);
  }
  const why = notPackable();
  if (why !== undefined) {
    process.stderr.write(`pack-workspace: ${why}\n`);
    process.exit(1);
  }
  mkdirSync(dest, { recursive: true });
  for (const [name, file] of packWorkspace(resolve(dest)))
    process.stdout.write(`${name} ${file}\n`);
}
