// What every administrative command shares: exit codes, strict flag parsing,
// printing for people or scripts, and one error-to-exit-code mapping.

import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type BuiltinContext, terminalText } from "@rukh/cli";
import { ProfileError, StateDirectory } from "@rukh/profile";

/** Exit codes of administrative commands (the same table as extension commands, docs/cli.md). */
export const OK = 0;
export const USAGE = 2;
export const REFUSED = 4;
export const STATE = 5;

/** A mistake in how the command was called: exit 2 with the message. */
export class UsageError extends Error {}

/** A well-formed request the profile's rules refuse: exit 4 with the message. */
export class Refusal extends Error {}

// Reads a file the owner named, refusing it before reading if it is larger
// than what it can possibly be.
export function readBounded(path: string, max: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > max) throw new UsageError(`${path} is ${size} bytes; expected at most ${max}`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export type Options = Record<
  string,
  { type: "string" | "boolean"; multiple?: boolean; short?: string }
>;
export interface Parsed {
  readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  readonly positionals: string[];
}

/** A flag parser's complaint, in the words every other usage error uses. */
function flagProblem(e: Error & { code?: string }, options: Options): string {
  const known = Object.keys(options).map((k) => `--${k}`);
  const expected = known.length > 0 ? `expected one of ${known.join(", ")}` : "it takes no flags";
  const flag =
    /(--[a-z0-9][a-z0-9-]*)/.exec(e.message)?.[1] ?? /'(-[^' ,]+)/.exec(e.message)?.[1] ?? "";
  switch (e.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown flag ${flag}; ${expected}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return e.message.includes("does not take an argument")
        ? `${flag} takes no value`
        : `${flag} needs a value`;
    default:
      return e.message;
  }
}

export function parse(args: readonly string[], options: Options = {}, positionals = 0): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(flagProblem(e as Error & { code?: string }, options));
  }
  if (positionals >= 0 && parsed.positionals.length !== positionals) {
    throw new UsageError(
      `expected ${positionals} argument${positionals === 1 ? "" : "s"}, got ${parsed.positionals.length}`,
    );
  }
  return parsed;
}

/** Version of the `--json` envelope every administrative command prints. */
export const OUTPUT_VERSION = 1;

/**
 * The one `--json` shape of every administrative command:
 * `{"rukhOutput":1,"command":"ext install","result":…}` on stdout, or
 * `{"rukhOutput":1,"command":…,"error":{"code","message","exitCode"}}` on
 * stderr (docs/schemas/rukh.output.schema.json).
 */
export function envelope(
  ctx: BuiltinContext,
  body: { result: unknown } | { error: object },
): string {
  return `${JSON.stringify({ rukhOutput: OUTPUT_VERSION, command: ctx.path.join(" "), ...body })}\n`;
}

/** Prints a command's result: `human` for people, `result` in the envelope for `--json`. */
export function print(ctx: BuiltinContext, human: string, result: unknown): void {
  ctx.stdout.write(
    ctx.json
      ? envelope(ctx, { result })
      : terminalText(human.endsWith("\n") ? human : `${human}\n`),
  );
}

/** Text from the journal, printed with control characters made visible: it never steers the terminal. */
export function safe(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A command body run against the state directory, its errors mapped to exit codes. */
export type AdminBody = (ctx: BuiltinContext, home: StateDirectory) => Promise<number> | number;

/** Wraps command bodies of `brand`: usage errors exit 2, refusals 4, state failures 5. */
export function guard(brand: string): (fn: AdminBody) => (ctx: BuiltinContext) => Promise<number> {
  return (fn) =>
    async (ctx: BuiltinContext): Promise<number> => {
      try {
        return await fn(ctx, new StateDirectory(ctx.stateDir));
      } catch (e) {
        return failed(ctx, brand, e);
      }
    };
}

/** Reports an error of an administrative command and returns its exit code. */
function failed(ctx: BuiltinContext, brand: string, e: unknown): number {
  const [exitCode, code, issues] =
    e instanceof UsageError
      ? [USAGE, "usage", []]
      : e instanceof Refusal
        ? [REFUSED, "refused", []]
        : e instanceof ProfileError
          ? [REFUSED, e.code, e.issues]
          : [STATE, "state_error", []];
  const message = (e as Error).message;
  if (ctx.json) {
    ctx.stderr.write(
      envelope(ctx, {
        error: { code, message, exitCode, ...(issues.length > 0 && { issues }) },
      }),
    );
    return exitCode;
  }
  // A usage error ends with the runnable line that shows how to call the command.
  if (exitCode === USAGE) return ctx.usage(terminalText(message));
  const prefix = e instanceof ProfileError ? `${e.code}: ` : "";
  ctx.stderr.write(`${brand}: ${prefix}${terminalText(message)}\n`);
  for (const i of issues)
    ctx.stderr.write(`  ${terminalText(i.path || "/")}: ${terminalText(i.message)}\n`);
  return exitCode;
}

/** `1 call`, `2 calls`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
