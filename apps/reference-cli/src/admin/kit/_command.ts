// What every administrative command's body shares: printing for people or
// scripts, bounded reads of the owner's files, presets by name, and the
// guard that reports a body's errors (see `_failure.ts`).

import { type BuiltinContext, printEnvelope, terminalText } from "@rukh/cli";
import type { OwnerConfig, StateDirectory, TaskPreset } from "@rukh/profile";
import { readFileAtMost } from "@rukh/profile/route-cache";
import { failed, UsageError } from "./_failure.js";

/** Why `--endpoint` and `--preset` are never given together. */
export const ENDPOINT_OR_PRESET =
  "--endpoint and --preset cannot be combined: an endpoint names its own preset";

// Reads a file the owner named, never more than `max` bytes of it (the
// profile's bounded reader): a larger file (or one without end, such as
// /dev/zero) or a missing one is a usage error naming `what` it should be.
export function readOwnerFile(path: string, max: number, what: string): Buffer {
  const bytes = readFileAtMost(path, max);
  if (bytes === "large")
    throw new UsageError(`${path} is larger than ${max} bytes; expected ${what}`);
  if (bytes === undefined) throw new UsageError(`${path} does not exist; expected ${what}`);
  return bytes;
}

/** Prints a command's result: `human` for people, `result` in the envelope for `--json`. */
export function print(ctx: BuiltinContext, human: string, result: unknown): void {
  if (ctx.json) printEnvelope(ctx, { result });
  else ctx.stdout.write(terminalText(human.endsWith("\n") ? human : `${human}\n`));
}

/**
 * Writes `text` (a newline added when it has none) to stderr, escaped like
 * all text from outside (`terminalText`): notes and errors that quote the
 * owner's files, a client or a package.
 */
export function note(ctx: BuiltinContext, text: string): void {
  ctx.stderr.write(terminalText(text.endsWith("\n") ? text : `${text}\n`));
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
        const state = new profile.StateDirectory(ctx.stateDir, {
          ...profile.brandStateOptions(brand, ctx.env),
          // A run that changes state names in its journal record what it published.
          ...(ctx.onPublished !== undefined && { onPublished: ctx.onPublished }),
        });
        return await fn(ctx, state, profile);
      } catch (e) {
        return failed(ctx, brand, e);
      }
    };
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
      { see: ["preset", "list"] },
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
