// A built-in that changes the owner's state, run as one call of the core:
// admitted as a built-in (the CLI, the owner's authority), its start on disk
// before its work, its outcome read from its exit code and journaled with
// the revision it published. A refusal, or a journal that cannot take the
// start, is shown as a command's outcome is, and nothing is changed.

import type { CliCommandSpec } from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";
import type { StateDirectory } from "@rukh/profile";
import type { CliOptions } from "../declarations/index.js";
import { builtinEnd, internal, type Session } from "../output/index.js";
import { cliBinding } from "./_binding.js";
import { render } from "./_render.js";
import type { OwnerSignal } from "./_signals.js";

/** One journaled run of a built-in. */
export interface JournaledRun {
  readonly options: CliOptions;
  /** Its path and how it reads its words: what an outcome that stopped it is shown for. */
  readonly route: { readonly path: readonly string[]; readonly cli: CliCommandSpec };
  /** Its checked input values. */
  readonly inputs: JsonObject;
  readonly stateDir: string;
  readonly signal: AbortSignal;
  readonly seen: () => OwnerSignal | undefined;
  /** Runs the built-in, told each revision it publishes; resolves to its exit code. */
  readonly work: (onPublished: (revisionId: string) => void) => Promise<number> | number;
}

/** Runs a state-changing built-in through the core; resolves to its exit code. */
export async function runJournaled(s: Session, run: JournaledRun): Promise<number> {
  const { brand } = s;
  const { options, route } = run;
  const [{ createInvocationCore }, profile] = await Promise.all([
    import("@rukh/core"),
    import("@rukh/profile"),
  ]);
  let core: Awaited<ReturnType<typeof createInvocationCore>>;
  try {
    const state = new profile.StateDirectory(run.stateDir, profile.brandStateOptions(brand, s.env));
    const preset = options.binding?.preset ?? (await defaultPreset(state));
    core = await createInvocationCore({ state, binding: cliBinding(options, brand, preset) });
  } catch (e) {
    return internal(s, `cannot start the invocation core: ${(e as Error).message}`);
  }
  let code: number | undefined;
  let published: string | undefined;
  const outcome = await core.invokeBuiltin({
    identity: `builtin:${route.path.join(" ")}`,
    inputs: run.inputs,
    surface: "cli",
    release: `${brand}@${options.version ?? "unversioned"}`,
    ownerSignal: run.signal,
    run: async () => {
      code = await run.work((id) => {
        published = id;
      });
      return {
        ...builtinEnd(code, run.seen() !== undefined),
        ...(published !== undefined && { published }),
      };
    },
  });
  await core.close();
  // It ran and said what it did; only a run that never began (or threw) is shown here.
  return code ?? render(s, route, outcome, run.seen());
}

/**
 * The owner's default preset, which the CLI's calls run under: `default`
 * before anything is published, or when the profile cannot be read (the
 * built-in then reports what is wrong with it, as it reads it too).
 */
async function defaultPreset(state: StateDirectory): Promise<string> {
  try {
    const id = await state.activeRevisionId();
    return id === null ? "default" : (await state.readRevision(id)).config.defaultPreset;
  } catch {
    return "default";
  }
}
