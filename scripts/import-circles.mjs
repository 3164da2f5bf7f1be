#!/usr/bin/env node
// Fails on any import circle among the sources of the packages and apps:
// two files that import each other, directly or around a longer loop, type
// imports included (a type shared by several files belongs in a file of its
// own that imports none of them). madge reads the imports; this only says
// which circles it found, each as the files around it.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { importGraph, ROOT } from "./_import-graph.mjs";

const sources = [];
for (const top of ["packages", "apps"])
  for (const name of readdirSync(join(ROOT, top))) {
    const src = join(top, name, "src");
    try {
      if (statSync(join(ROOT, src)).isDirectory()) sources.push(src);
    } catch {}
  }

const found = await importGraph(sources);
const circles = found.circular();
if (circles.length === 0) {
  console.log(`no import circles among ${Object.keys(found.obj()).length} source files`);
} else {
  console.log(`${circles.length} import circle(s):`);
  for (const c of circles) console.log(`  ${[...c, c[0]].join(" -> ")}`);
  process.exit(1);
}
