// Running one of the brand's built-in commands: `--json`/`--no-color` after
// its path too, declared inputs through the same lexer, decoder and validator
// as an extension command, SIGINT/SIGTERM as an abort signal, and one that
// changes the owner's state through the core (`_journaled-builtin.ts`).

import type { InputValue } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";
import { type CliBuiltin, type CliOptions, declared } from "../declarations/index.js";
import { type Session, usageLines } from "../output/index.js";
import { issueMessage, lex, ownFlags } from "../parsing/index.js";
import { withSignals } from "./_signals.js";

/** One run of a built-in command. */
export interface BuiltinRun {
  readonly builtin: CliBuiltin;
  /** The command path that named it. */
  readonly path: readonly string[];
  /** The words after its path. */
  readonly after: readonly string[];
  readonly stateDir: string;
  /** Whether SIGINT/SIGTERM abort it (the CLI's `handleSignals`). */
  readonly handleSignals: boolean;
  /** The CLI's options: who a journaled run is bound to, and the brand's version. */
  readonly options: CliOptions;
}

/** Runs `builtin` at `path` with the words `after` it. */
export async function runBuiltin(
  s: Session,
  { builtin, path, after, stateDir, handleSignals, options }: BuiltinRun,
): Promise<number> {
  const { g, brand } = s;
  s.command = path;
  // --json and --no-color after the path too, as for every command (not after a `--`).
  const own = ownFlags(after);
  g.json ||= own.includes("--json");
  g.noColor ||= own.includes("--no-color");
  const args = [
    ...own.filter((a) => a !== "--json" && a !== "--no-color"),
    ...after.slice(own.length),
  ];
  const recovery = [brand, ...path, "--help"];
  let inputs: Readonly<Record<string, InputValue>> = {};
  const d = await declared(builtin);
  if (d !== undefined) {
    // Declared: the same lexer, decoder and validator as an extension command.
    const lexed = lex(d.cli, after);
    const checked = lexed.ok ? d.check(lexed.raw) : undefined;
    const problems = !lexed.ok
      ? [lexed.message]
      : checked?.ok === false
        ? checked.issues.map((issue) => issueMessage(d.cli, issue))
        : [];
    if (problems.length > 0) return usageLines(s, problems, recovery);
    if (checked?.ok) inputs = checked.values;
  }
  const changes =
    typeof builtin.changesState === "function"
      ? builtin.changesState(inputs)
      : builtin.changesState === true;
  return withSignals(handleSignals, s.stderr, async (signal, seen) => {
    const context = {
      args,
      inputs,
      stateDir,
      json: g.json,
      env: s.env,
      stdout: s.stdout,
      stderr: s.stderr,
      outTTY: s.outTTY,
      signal,
      path,
      usage: (m: string | readonly string[], see?: readonly string[]) =>
        usageLines(s, typeof m === "string" ? [m] : m, see ? [brand, ...see] : recovery),
    };
    if (!changes || d === undefined) return builtin.run(context);
    return (await import("./_journaled-builtin.js")).runJournaled(s, {
      options,
      route: { path, cli: d.cli },
      inputs: inputs as JsonObject,
      stateDir,
      signal,
      seen,
      work: (onPublished) => builtin.run({ ...context, onPublished }),
    });
  });
}
