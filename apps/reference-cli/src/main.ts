import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createCli } from "@rukh/cli";
import { adminBuiltins } from "./admin/index.js";

/** The brand of this CLI; a scaffolded CLI changes it (and nothing else here). */
export const BRAND = "rukh";

const version: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;
const executable = fileURLToPath(new URL("../bin/rukh", import.meta.url));

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
