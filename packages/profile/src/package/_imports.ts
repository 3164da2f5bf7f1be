// Whether a package's Node programs can load what they import: every static
// (and literal dynamic) import of a program, and of the package modules it
// reaches, names a Node builtin, a file of the package, or a package
// vendored under its node_modules/. Checked when a package is signed or
// installed, so that a package that cannot start is refused then, not at
// its first call. Nothing is executed; the source is only lexed.

import { builtinModules } from "node:module";
import { posix } from "node:path";
import type { ExtensionDescriptor } from "@rukh/descriptor";
import { init, parse } from "es-module-lexer";
import { type PackageFiles, ProfileError } from "../model/index.js";

const BUILTINS: ReadonlySet<string> = new Set(builtinModules);
const MODULE = /\.(mjs|js)$/;

function unresolved(importer: string, spec: string, why: string): ProfileError {
  return new ProfileError(
    "unresolved_import",
    `${importer} imports ${JSON.stringify(spec)}, ${why}`,
  );
}

/** The vendored package a bare specifier names (`@scope/name` or `name`). */
function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Whether `node_modules/<name>/package.json` is in the package on the importer's way up. */
function vendored(files: PackageFiles, importer: string, name: string): boolean {
  for (let dir = posix.dirname(importer); ; dir = posix.dirname(dir)) {
    const base = dir === "." ? "" : `${dir}/`;
    if (files.has(`${base}node_modules/${name}/package.json`)) return true;
    if (dir === "." || dir === "/") return false;
  }
}

/**
 * Refuses (`unresolved_import`) a Node program that imports what the package
 * does not contain. `file:` and `data:` URLs are left to the sandbox, which
 * lets a strict command read only its package and the runtime.
 */
export async function checkImports(
  descriptor: ExtensionDescriptor,
  files: PackageFiles,
): Promise<void> {
  await init;
  const seen = new Set<string>();
  const queue = descriptor.commands
    .filter((c) => c.execute.runtime === "node" && MODULE.test(c.execute.program))
    .map((c) => c.execute.program);
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file) || file.split("/").includes("node_modules")) continue;
    seen.add(file);
    const bytes = files.get(file);
    if (bytes === undefined) continue;
    let specs: (string | undefined)[];
    try {
      specs = parse(bytes.toString("utf8"), file)[0].map((i) => i.n);
    } catch (e) {
      throw new ProfileError(
        "unresolved_import",
        `${file} cannot be read as a JavaScript module: ${(e as Error).message}`,
      );
    }
    for (const spec of specs) {
      if (spec === undefined) continue;
      if (spec.startsWith("node:") || BUILTINS.has(spec)) continue;
      if (spec.startsWith("file:") || spec.startsWith("data:")) continue;
      if (spec.startsWith("/"))
        throw unresolved(file, spec, "an absolute path outside the package");
      if (spec.startsWith("./") || spec.startsWith("../")) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        if (target.startsWith("../") || !files.has(target))
          throw unresolved(file, spec, "which is not a file of the package");
        if (MODULE.test(target)) queue.push(target);
        continue;
      }
      const name = packageName(spec);
      // With a package.json, the package holds only what npm publishes: its bundled dependencies.
      const fix = files.has("package.json")
        ? `list it in package.json dependencies and bundleDependencies, as npm install --save-bundle ${name} does`
        : `vendor it under node_modules/${name}`;
      if (!vendored(files, file, name))
        throw unresolved(file, spec, `which the package does not contain (${fix})`);
    }
  }
}
