// What every administrative command shares: exit codes, strict flag parsing,
// printing for people or scripts, and one error-to-exit-code mapping.

import { type BuiltinContext, outputEnvelope, terminalText } from "@rukh/cli";
import type { OwnerConfig, StateDirectory, TaskPreset } from "@rukh/profile";
import { readBounded as readAtMost } from "@rukh/profile/route-cache";

/** Exit codes of administrative commands (the same table as extension commands, docs/cli.md). */
export const OK = 0;
export const USAGE = 2;
export const REFUSED = 4;
export const STATE = 5;

/** A mistake in how the command was called: exit 2 with the message. */
export class UsageError extends Error {}

/** Why `--endpoint` and `--preset` are never given together. */
export const ENDPOINT_OR_PRESET =
  "--endpoint and --preset cannot be combined: an endpoint names its own preset";

/** A well-formed request the profile's rules refuse: exit 4 with the message. */
export class Refusal extends Error {}

// Reads a file the owner named, never more than `max` bytes of it (the
// profile's bounded reader): a larger file (or one without end, such as
// /dev/zero) or a missing one is a usage error naming `what` it should be.
export function readBounded(path: string, max: number, what: string): Buffer {
  const bytes = readAtMost(path, max);
  if (bytes === "large")
    throw new UsageError(`${path} is larger than ${max} bytes; expected ${what}`);
  if (bytes === undefined) throw new UsageError(`${path} does not exist; expected ${what}`);
  return bytes;
}

/** The one `--json` shape of every administrative command (see `outputEnvelope` of `@rukh/cli`). */
export function envelope(
  ctx: BuiltinContext,
  body: { result: unknown } | { error: object },
): string {
  return outputEnvelope(ctx.path, body);
}

/** Prints a command's result: `human` for people, `result` in the envelope for `--json`. */
export function print(ctx: BuiltinContext, human: string, result: unknown): void {
  ctx.stdout.write(
    ctx.json
      ? envelope(ctx, { result })
      : terminalText(human.endsWith("\n") ? human : `${human}\n`),
  );
}

/**
 * Writes `text` (a newline added when it has none) to stderr, escaped like
 * all text from outside (`terminalText`): notes and errors that quote the
 * owner's files, a client or a package.
 */
export function note(ctx: BuiltinContext, text: string): void {
  ctx.stderr.write(terminalText(text.endsWith("\n") ? text : `${text}\n`));
}

/** One-line text from the journal: `terminalText`, with newlines and tabs made visible too. */
export function safe(text: string): string {
  return terminalText(text).replace(/[\n\t]/g, (c) => (c === "\n" ? "\\u000a" : "\\u0009"));
}

/** The profile library, loaded when a command body first runs: help and completion never load it. */
export type Profile = typeof import("@rukh/profile");
export const loadProfile = (): Promise<Profile> => import("@rukh/profile");

/** A command body run against the state directory, its errors mapped to exit codes. */
export type AdminBody = (
  ctx: BuiltinContext,
  state: StateDirectory,
  profile: Profile,
) => Promise<number> | number;

/** Wraps command bodies of `brand`: usage errors exit 2, refusals 4, state failures 5. */
export function guard(brand: string): (fn: AdminBody) => (ctx: BuiltinContext) => Promise<number> {
  return (fn) =>
    async (ctx: BuiltinContext): Promise<number> => {
      const profile = await loadProfile();
      try {
        const state = new profile.StateDirectory(
          ctx.stateDir,
          profile.brandStateOptions(brand, ctx.env),
        );
        return await fn(ctx, state, profile);
      } catch (e) {
        return failed(ctx, brand, e, profile);
      }
    };
}

/**
 * A `RegistryError` of `@rukh/registry`, known by its name so that commands
 * that never reach a registry never load it.
 */
function isRegistryError(e: unknown): e is Error & { code: string } {
  return (
    e instanceof Error &&
    e.name === "RegistryError" &&
    typeof (e as { code?: unknown }).code === "string"
  );
}

/** Reports an error of an administrative command and returns its exit code. */
function failed(ctx: BuiltinContext, brand: string, e: unknown, profile: Profile): number {
  const { ProfileError } = profile;
  const [exitCode, code, issues] =
    e instanceof UsageError
      ? [USAGE, "usage", []]
      : e instanceof Refusal
        ? [REFUSED, "refused", []]
        : e instanceof ProfileError
          ? [REFUSED, e.code, e.issues]
          : isRegistryError(e)
            ? [REFUSED, e.code, []]
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
  const prefix = e instanceof ProfileError || isRegistryError(e) ? `${e.code}: ` : "";
  ctx.stderr.write(`${brand}: ${prefix}${terminalText(message)}\n`);
  for (const i of issues)
    ctx.stderr.write(`  ${terminalText(i.path || "/")}: ${terminalText(i.message)}\n`);
  return exitCode;
}

/** `1 call`, `2 calls`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The preset an owner named; a name that is not a preset (`__proto__` included) is a usage error. */
export function presetOf({ presetNamed }: Profile, config: OwnerConfig, name: string): TaskPreset {
  const preset = presetNamed(config, name);
  if (preset === undefined)
    throw new UsageError(
      `no preset ${JSON.stringify(name)}; expected one of ${Object.keys(config.presets).join(", ")}`,
    );
  return preset;
}

/** What the administrative commands need to know about the brand. */
export interface AdminOptions {
  readonly brand: string;
  /** Absolute path of the brand's executable, for client configuration snippets. */
  readonly executable: string;
  /** The brand's version, reported to MCP clients. */
  readonly version: string;
}
