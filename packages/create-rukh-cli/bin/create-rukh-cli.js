#!/usr/bin/env node
// npm create rukh-cli <name> [directory] [--packages <folder of tarballs>]
import { resolve } from "node:path";
import { scaffold } from "../dist/index.js";

const USAGE =
  "usage: npm create rukh-cli <name> [directory] [--packages <folder of @rukh tarballs>]\n";
const args = process.argv.slice(2);
const at = args.indexOf("--packages");
let packages;
if (at !== -1) {
  packages = args[at + 1];
  if (packages === undefined || packages.startsWith("-")) {
    process.stderr.write(`--packages: expected a folder\n${USAGE}`);
    process.exit(2);
  }
  args.splice(at, 2);
}
const [name, dir = name, extra] = args;
if (!name || name.startsWith("-") || dir.startsWith("-") || extra !== undefined) {
  process.stderr.write(USAGE);
  process.exit(2);
}
try {
  const target = resolve(dir);
  const files = scaffold({
    name,
    dir: target,
    ...(packages !== undefined && { packages: resolve(packages) }),
  });
  process.stdout.write(
    `created ${name} in ${target}:\n${files.map((f) => `  ${f}`).join("\n")}\n\nnext:\n  cd ${dir}\n  npm install && npm run build && npm test\n  ./bin/${name} --help\n`,
  );
} catch (e) {
  process.stderr.write(`create-rukh-cli: ${e.message}\n`);
  process.exit(2);
}
