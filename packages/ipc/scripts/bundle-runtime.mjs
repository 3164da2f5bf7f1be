#!/usr/bin/env node
// Bundles the child runtime (src/runtime.ts and everything it imports,
// @rukh/json included) into one ES module, dist/runtime/index.js, beside a
// package.json naming it: the directory a package vendors as
// node_modules/@rukh/ipc, so a command process resolves a single module.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const { version } = JSON.parse(readFileSync(`${root}package.json`, "utf8"));
const out = `${root}dist/runtime`;
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [`${root}src/runtime.ts`],
  outfile: `${out}/index.js`,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
  banner: { js: `// @rukh/ipc ${version}: the child runtime, bundled. Generated; do not edit.` },
});
writeFileSync(
  `${out}/package.json`,
  `${JSON.stringify(
    {
      name: "@rukh/ipc",
      version,
      description: "The Rukh child runtime as one module, for vendoring into extension packages.",
      license: "MIT",
      type: "module",
      exports: "./index.js",
    },
    null,
    2,
  )}\n`,
);
