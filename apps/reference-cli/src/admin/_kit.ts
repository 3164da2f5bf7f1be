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

export function parse(args: readonly string[], options: Options = {}, positionals = 0): Parsed {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (positionals >= 0 && parsed.positionals.length !== positionals) {
    throw new UsageError(
      `expected ${positionals} argument${positionals === 1 ? "" : "s"}, got ${parsed.positionals.length}`,
    );
  }
  return parsed;
}

export function print(ctx: BuiltinContext, human: string, data: unknown): void {
  ctx.stdout.write(
    ctx.json
      ? `${JSON.stringify(data)}\n`
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
        if (e instanceof UsageError) {
          ctx.stderr.write(`${brand}: ${terminalText(e.message)}\n`);
          return USAGE;
        }
        if (e instanceof Refusal) {
          ctx.stderr.write(`${brand}: ${terminalText(e.message)}\n`);
          return REFUSED;
        }
        if (e instanceof ProfileError) {
          ctx.stderr.write(`${brand}: ${e.code}: ${terminalText(e.message)}\n`);
          for (const i of e.issues)
            ctx.stderr.write(`  ${terminalText(i.path || "/")}: ${terminalText(i.message)}\n`);
          return REFUSED;
        }
        ctx.stderr.write(`${brand}: ${terminalText((e as Error).message)}\n`);
        return STATE;
      }
    };
}

/** `1 call`, `2 calls`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
