#!/usr/bin/env node
// npm create rukh-cli <name> [directory]
import { resolve } from "node:path";
import { scaffold } from "../dist/index.js";

const [name, dir = name] = process.argv.slice(2);
if (!name || name.startsWith("-")) {
  process.stderr.write("usage: npm create rukh-cli <name> [directory]\n");
  process.exit(2);
}
try {
  const target = resolve(dir);
  const files = scaffold({ name, dir: target });
  process.stdout.write(
    `created ${name} in ${target}:\n${files.map((f) => `  ${f}`).join("\n")}\n\nnext:\n  cd ${dir}\n  npm install && npm run build && npm test\n  ./bin/${name} --help\n`,
  );
} catch (e) {
  process.stderr.write(`create-rukh-cli: ${e.message}\n`);
  process.exit(2);
}
