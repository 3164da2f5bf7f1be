#!/usr/bin/env node
// Bundles the built CLI (dist/main.js and every workspace package and
// dependency it imports) into dist/rukh.js plus lazily loaded chunks, the
// program bin/rukh runs: a start resolves a handful of files instead of a
// hundred, and what a path does not use (the MCP host, the profile's
// publication, the core) is a chunk it never loads.
import { rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
rmSync(`${root}dist/chunks`, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { rukh: `${root}dist/main.js` },
  outdir: `${root}dist`,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  // CommonJS dependencies call require() for Node builtins.
  banner: {
    js: 'import { createRequire as __rukhCreateRequire } from "node:module"; const require = __rukhCreateRequire(import.meta.url);',
  },
});
// Which source files each output holds: the test of what each path loads
// (test/loading.test.ts) maps the files a process opened back to packages.
writeFileSync(
  `${root}dist/bundle.json`,
  JSON.stringify(
    Object.fromEntries(
      Object.entries(metafile.outputs).map(([file, o]) => [
        file.slice("dist/".length),
        Object.keys(o.inputs),
      ]),
    ),
  ),
);
