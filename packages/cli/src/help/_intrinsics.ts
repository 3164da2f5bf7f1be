// The commands every brand's CLI has without declaring them: help, shell
// completion scripts, and the completion candidates those scripts ask for.

import { type CliBuiltin, declared } from "../declarations/index.js";
import { EXIT_CODES, type Session, shown, usage } from "../output/index.js";
import type { RouteIndex } from "../routes/index.js";
import { COMPLETION_SHELLS, complete, completionScript } from "./_completion.js";
import { builtinHelp, commandHelp, groupHelp, rootHelp } from "./_help.js";
import { unknownCommand } from "./_unknown.js";

/** First words a brand's own built-ins may not take. */
export const INTRINSIC: ReadonlySet<string> = new Set(["help", "completion", "__complete"]);

/** The intrinsic commands of a run over the state directory `root`. */
export function intrinsics(s: Session, root: string, index: () => RouteIndex): CliBuiltin[] {
  const { brand, stdout } = s;
  return [
    {
      path: ["help"],
      summary: "Show help for a group or command",
      usage: "[<command path>...]",
      run: ({ args }) => help(s, index(), args),
    },
    {
      path: ["completion"],
      summary: "Print a shell completion script",
      usage: "<bash|zsh>",
      description: `Load it with: eval "$(${brand} completion bash)" (or zsh).`,
      run: ({ args }) => {
        const shell = args[0];
        if (args.length !== 1 || !(COMPLETION_SHELLS as readonly string[]).includes(shell!))
          return usage(
            s,
            `completion needs one shell; expected one of ${COMPLETION_SHELLS.join(", ")}`,
            [brand, "completion", "bash"],
          );
        stdout.write(completionScript(shell!, brand));
        return EXIT_CODES.success;
      },
    },
    {
      path: ["__complete"],
      summary: "Completion candidates (used by the completion scripts)",
      hidden: true,
      run: async ({ args }) => {
        const words = args[0] === "--" ? args.slice(1) : args;
        const out = await complete(index(), words, root);
        if (out.length > 0) stdout.write(`${out.join("\n")}\n`);
        return EXIT_CODES.success;
      },
    },
  ];
}

/** Help for the CLI, a group or a command, by the words that name it. */
export async function help(
  s: Session,
  index: RouteIndex,
  words: readonly string[],
): Promise<number> {
  const r = index.resolve(words);
  switch (r.kind) {
    case "root":
      shown(s, (style) => rootHelp(index, s.brand, s.version, style));
      return EXIT_CODES.success;
    case "group":
      if (r.words < words.length) return unknownCommand(s, index, words.slice(0, r.words + 1));
      shown(s, (style) => groupHelp(index, r.group, s.brand, style));
      return EXIT_CODES.success;
    case "target": {
      const t = r.entry.target;
      if (t.kind === "command") {
        const cli = t.load().cli;
        shown(s, (style) => commandHelp(s.brand, cli, style, r.entry.dev));
        return EXIT_CODES.success;
      }
      // A declared built-in's help is an extension command's: the same generator.
      const d = await declared(t.builtin);
      shown(s, (style) =>
        d !== undefined
          ? commandHelp(s.brand, d.cli, style)
          : builtinHelp(s.brand, t.builtin, style),
      );
      return EXIT_CODES.success;
    }
    case "unknown":
      return unknownCommand(s, index, r.typed);
  }
}
