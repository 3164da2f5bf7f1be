// The brand `acme` built in this process, for suites that test what the CLI
// does without spawning it: its output captured, its signals left alone.
import { type CliOptions, createCli } from "../src/index.js";

/** What one in-process run returned and wrote. */
export interface InProcessRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * An `acme` CLI on the state directory `home` (with `env` added and `over`
 * over its options); each call runs `argv` and returns the exit code and what
 * that run wrote.
 *
 * @example
 * const r = await inProcess(home)("hello", "Ada");
 */
export function inProcess(
  home: string,
  over: Partial<CliOptions> = {},
  env: Record<string, string> = {},
): (...argv: string[]) => Promise<InProcessRun> {
  let out = "";
  let err = "";
  const c = createCli({
    brand: "acme",
    version: "1.0.0",
    env: { ACME_HOME: home, ...env },
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    isTTY: false,
    handleSignals: false,
    ...over,
  });
  return async (...argv: string[]) => {
    out = "";
    err = "";
    const code = await c.run(argv);
    return { code, out, err };
  };
}
