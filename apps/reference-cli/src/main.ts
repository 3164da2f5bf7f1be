import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createCli } from "@rukh/cli";
import { brandOf } from "./_brand.js";
import { adminBuiltins } from "./admin/index.js";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const brand = brandOf(manifest);
if (!brand.ok) throw new Error(`package.json: ${brand.issues.join("; ")}`);

/**
 * The brand of this CLI: the one command its package.json's `bin` names.
 * Renaming a brand is changing that key; the name, the state-directory
 * variable and the executable `mcp config` prints follow.
 */
export const BRAND: string = brand.value.name;

const version: string = manifest.version;
const executable = fileURLToPath(new URL(`../${brand.value.bin}`, import.meta.url));

/**
 * Entry point of the `rukh` reference CLI; returns the process exit code.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: readonly string[]): Promise<number> {
  const cli = createCli({
    brand: BRAND,
    version,
    builtins: adminBuiltins({ brand: BRAND, version, executable }),
  });
  return cli.run(argv);
}

/**
 * Runs the CLI as the process: its exit code becomes the process's, and
 * once the call is over, whatever is still open (a stopped command's pipe
 * after a second Ctrl-C, a server's input) keeps it alive only a moment
 * longer, for its last words to reach the terminal. What `bin/` runs.
 *
 * @example
 * start(process.argv.slice(2));
 */
export function start(argv: readonly string[]): void {
  void main(argv).then((code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(), 200).unref();
  });
}
