import { readFileSync } from "node:fs";

const version: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

/**
 * Entry point of the `rukh` reference CLI; returns the process exit code.
 *
 * @example
 * process.exitCode = await main(["--version"]);
 */
export async function main(argv: readonly string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`rukh ${version}\n`);
    return 0;
  }
  process.stderr.write(`rukh: unknown arguments ${JSON.stringify(argv)}; expected --version\n`);
  return 2;
}
