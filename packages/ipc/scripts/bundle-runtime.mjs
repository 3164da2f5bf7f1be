#!/usr/bin/env node
// Bundles the child runtime (src/runtime.ts and everything it imports,
// @rukh/json included) into one ES module, dist/runtime/index.js, with its
// types in one declaration file beside it and a package.json naming both:
// the directory a package vendors as node_modules/@rukh/ipc, so a command
// process resolves a single module and an author's editor or tsc finds the
// handler types without installing anything.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
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
// The runtime's declarations, @rukh/json's types inlined, checked by tsc.
const dts = createRequire(import.meta.url).resolve(
  "dts-bundle-generator/dist/bin/dts-bundle-generator.js",
);
execFileSync(
  process.execPath,
  [
    dts,
    "--silent",
    "--project",
    `${root}tsconfig.build.json`,
    "--external-inlines",
    "@rukh/json",
    "--no-banner",
    "-o",
    `${out}/index.d.ts`,
    `${root}src/runtime.ts`,
  ],
  { stdio: "inherit" },
);
writeFileSync(
  `${out}/index.d.ts`,
  `// @rukh/ipc ${version}: the child runtime's types. Generated; do not edit.\n${readFileSync(`${out}/index.d.ts`, "utf8")}`,
);
writeFileSync(
  `${out}/package.json`,
  `${JSON.stringify(
    {
      name: "@rukh/ipc",
      version,
      description: "The Rukh child runtime as one module, for vendoring into extension packages.",
      license: "MIT",
      type: "module",
      exports: { ".": { types: "./index.d.ts", default: "./index.js" } },
    },
    null,
    2,
  )}\n`,
);
