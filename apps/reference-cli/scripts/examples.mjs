// Builds the example extensions in fixtures/extensions into signed,
// self-contained packages: each gets the bundled @rukh/ipc child runtime
// (one module) under node_modules/@rukh/ipc, then is signed
// with the fixture publisher key. Used by the demo and the end-to-end tests.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { signPackage } from "@rukh/profile";

const root = fileURLToPath(new URL("../../../", import.meta.url));
export const EXAMPLES_DIR = join(root, "fixtures/extensions");
export const EXAMPLE_KEY = join(root, "fixtures/keys/example-publisher.key");
export const EXAMPLE_PUB = join(root, "fixtures/keys/example-publisher.pub");
export const EXAMPLE_PUBLISHER = "acme";

// The child runtime as this workspace bundled it: one module, its types and
// its package.json, vendored as node_modules/@rukh/ipc.
const runtimeDir = dirname(createRequire(import.meta.url).resolve("@rukh/ipc/runtime"));

function vendorRuntime(into) {
  const to = join(into, "node_modules", "@rukh", "ipc");
  mkdirSync(to, { recursive: true });
  cpSync(runtimeDir, to, { recursive: true });
}

/**
 * Builds every example into `outDir/<folder>` and returns their paths by folder name.
 * @param {string} outDir
 * @returns {Promise<Record<string, string>>}
 */
export async function buildExamples(outDir) {
  const key = readFileSync(EXAMPLE_KEY, "utf8");
  const built = {};
  for (const name of readdirSync(EXAMPLES_DIR).sort()) {
    const src = join(EXAMPLES_DIR, name);
    if (!statSync(src).isDirectory()) continue;
    const dir = join(outDir, name);
    rmSync(dir, { recursive: true, force: true });
    cpSync(src, dir, { recursive: true });
    if (readdirSync(join(dir, "bin")).some((f) => f.endsWith(".mjs"))) {
      vendorRuntime(dir);
    }
    await signPackage(dir, key, { publisher: EXAMPLE_PUBLISHER });
    built[name] = dir;
  }
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write("usage: examples.mjs <output directory>\n");
    process.exit(2);
  }
  for (const [name, dir] of Object.entries(await buildExamples(out)))
    process.stdout.write(`${name}\t${dir}\n`);
}
