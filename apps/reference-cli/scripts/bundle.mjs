#!/usr/bin/env node
// Bundles the built CLI (dist/main.js and every workspace package and
// dependency it imports) into dist/rukh.cjs plus lazily loaded chunks, the
// program bin/rukh runs: a start resolves a handful of files instead of a
// hundred, and what a path does not use (the MCP host, the profile's
// publication, the core) is a chunk it never loads.
//
// The files are CommonJS, though the sources are ES modules: on Node 20 an
// ES module entry starts the ESM loader and evaluates every export of each
// built-in it imports (importing node:fs loads its streams), about 10 ms of
// every start; `require` does neither. esbuild splits only ES modules, so
// each chunk is split as one and then rewritten as CommonJS, its imports of
// other chunks (static and dynamic) as `require`, so that every chunk is
// loaded once, by one loader.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Built-ins a chunk requires where first used (see loadedWhenUsed). */
const WHEN_USED = ["node:crypto", "node:zlib"];
rmSync(`${root}dist/chunks`, { recursive: true, force: true });
rmSync(`${root}dist/rukh.js`, { force: true });
const { metafile, outputFiles } = await build({
  entryPoints: { rukh: `${root}dist/main.js` },
  outdir: `${root}dist`,
  outExtension: { ".js": ".cjs" },
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  write: false,
});

// A dynamic import of a chunk or a built-in, as esbuild writes it. Any
// other (a package's own module, by a computed URL) stays an import().
const DYNAMIC = /\bimport\(("(?:\.\.?\/[^"]+\.cjs|node:[a-z_/]+)")\)/g;
for (const file of outputFiles) {
  const { code, warnings } = await transform(file.text, {
    format: "cjs",
    platform: "node",
    target: "node20",
    loader: "js",
    logLevel: "warning",
    // Each chunk's own URL, as `import.meta.url` was in the ES module.
    define: { "import.meta.url": "__rukhModuleUrl" },
    banner: `"use strict";\nconst __rukhModuleUrl = require("node:url").pathToFileURL(__filename).href;`,
  });
  // A construct CommonJS has not (import.meta but its URL, top-level await) is a build error.
  if (warnings.length > 0)
    throw new Error(`${file.path}: ${warnings.map((w) => w.text).join("; ")}`);
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(
    file.path,
    loadedWhenUsed(code.replace(DYNAMIC, "Promise.resolve().then(() => require($1))")),
  );
}

// Built-ins whose loading costs a start that never uses them: node:crypto
// compiles and runs some twenty internal modules (a help run on Node 26
// took about 8 % longer with it) though listing, help and completion hash nothing when
// their caches are known good; node:zlib (on Node 26 with its zip modules,
// about 9 ms of CPU) is used only to pack and unpack packages, never by a
// command's run. A chunk's top-level `require` of one becomes
// an object that requires it at the first use of a member, if members are
// all the chunk uses it for (esbuild's named imports are); otherwise it is
// left as it was. test/loading.test.ts checks that help loads none of them.
function loadedWhenUsed(code) {
  let out = code;
  for (const id of WHEN_USED) {
    const declared = new RegExp(`^var (\\w+) = require\\("${id}"\\);$`, "gm");
    for (const [line, name] of code.matchAll(declared)) {
      const uses = out.split(new RegExp(`\\b${name}\\b`)).length - 1;
      const members = out.split(new RegExp(`\\b${name}\\.\\w`)).length - 1;
      if (uses !== members + 1) continue;
      out = out.replace(line, `var ${name} = __rukhWhenUsed(${JSON.stringify(id)});`);
    }
  }
  if (out === code) return code;
  return out.replace(
    /^"use strict";\n/,
    `"use strict";\nconst __rukhWhenUsed = (id) => { let m; return new Proxy({}, { get: (_, key) => (m ??= require(id))[key] }); };\n`,
  );
}

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
