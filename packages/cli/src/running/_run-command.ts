// Running an extension command: its words lexed by its declared flags
// (a passthrough program gets them verbatim), decoded to typed inputs, and
// one invocation of the core, rendered as docs/cli.md says.

import type { CommandSpec } from "@rukh/descriptor";
import type { CliRoute, StateDirectory } from "@rukh/profile";
import type { CliOptions } from "../declarations/index.js";
import { errStyle, internal, type Session, usage, usageLines } from "../output/index.js";
import { issueMessage, lex, ownFlags } from "../parsing/index.js";
import type { PublishedDescriptor } from "../routes/index.js";
import { cliBinding } from "./_binding.js";
import { progressLine } from "./_progress.js";
import { render } from "./_render.js";
import { type OwnerSignal, withSignals } from "./_signals.js";

/** One run of an extension command. */
export interface CommandRun {
  readonly options: CliOptions;
  readonly route: CliRoute;
  /** The words after its path. */
  readonly after: readonly string[];
  /** The state directory. */
  readonly root: string;
  /** The revision the route was read from, which the call pins. */
  readonly revisionId: string | undefined;
  /** Its package's descriptor as publication validated it, when the route came from the route cache. */
  readonly published?: PublishedDescriptor | undefined;
}

/**
 * Runs `route` of revision `revisionId` with the words `after` its path;
 * `published` is its package's descriptor as publication validated it, when
 * the route came from the route cache.
 */
export async function runCommand(
  s: Session,
  { options, route, after, root, revisionId, published }: CommandRun,
): Promise<number> {
  const { g, brand } = s;
  const cli = route.cli;
  s.command = route.path;
  const recovery = [brand, ...route.path, "--help"];
  let raw = new Map<string, string[]>();
  if (!cli.passthrough) {
    // --json after the path counts for a usage error the lexer finds, too.
    g.json ||= ownFlags(after).includes("--json");
    const lexed = lex(cli, after);
    if (!lexed.ok) return usage(s, lexed.message, recovery);
    raw = lexed.raw;
    g.json ||= lexed.json;
    g.noColor ||= lexed.noColor;
  }
  let command: CommandSpec;
  let state: StateDirectory;
  let preset: string;
  const [profile, descriptor] = await Promise.all([
    import("@rukh/profile"),
    import("@rukh/descriptor"),
  ]);
  try {
    state = new profile.StateDirectory(root, profile.brandStateOptions(brand, s.env));
    const revision = await state.readRevision(revisionId!);
    preset = options.binding?.preset ?? revision.config.defaultPreset;
    const ext = revision.extensions.find((e) => e.id === route.extension);
    if (ext === undefined) throw new Error(`extension ${route.extension} is not installed`);
    // Parsed once for this process: the core reads the same descriptor when it admits the call.
    const stored = await profile.storedDescriptor(
      root,
      ext.digest,
      published?.package === ext.digest ? published.descriptor : undefined,
    );
    const found = stored.commands.find((c) => c.identity === route.identity);
    if (found === undefined) throw new Error(`${route.identity} is not in its package`);
    command = found;
  } catch (e) {
    return internal(s, `cannot load ${route.identity}: ${(e as Error).message}`);
  }
  const decoded = descriptor.decodeCliInputs(command, raw);
  if (!decoded.ok)
    return usageLines(
      s,
      decoded.issues.map((issue) => issueMessage(cli, issue)),
      recovery,
    );

  const { createInvocationCore } = await import("@rukh/core");
  let core: Awaited<ReturnType<typeof createInvocationCore>>;
  try {
    core = await createInvocationCore({
      state,
      binding: cliBinding(options, brand, preset),
      ...(options.commandEnv !== undefined && { env: options.commandEnv }),
    });
  } catch (e) {
    return internal(s, `cannot start the invocation core: ${(e as Error).message}`);
  }
  return withSignals(
    options.handleSignals !== false,
    s.stderr,
    async (signal, seen) => {
      const progress = progressLine(s, [s.brand, ...route.path].join(" "));
      let outcome: Awaited<ReturnType<typeof core.invoke>>;
      try {
        outcome = await core.invoke({
          command: { identity: route.identity },
          supplied: decoded.value,
          surface: "cli",
          ...(revisionId !== undefined && { revisionId }),
          ownerSignal: signal,
          ...(cli.passthrough && { passthroughArgs: after }),
          ...(options.cwd !== undefined && { cwd: options.cwd }),
          ...(progress !== undefined && { onProgress: (p) => progress.report(p) }),
        });
      } finally {
        progress?.clear();
      }
      const signalSeen: OwnerSignal | undefined = seen();
      await core.close();
      return render(s, route, outcome, signalSeen);
    },
    () => {
      // Second signal: stop waiting. The child's channel closes with this
      // process, which ends a managed command's runtime.
      s.stderr.write(
        `${errStyle(s).error("error:")} interrupted again; not waiting for the command to stop\n`,
      );
    },
  );
}
