// Shell completion: the script a shell loads once, and the candidates it
// asks for on every Tab, read from the route index and the commands'
// declarations.

import type { CliCommandSpec } from "@rukh/descriptor";
import { BRAND_PATTERN, CliError, declared } from "../declarations/index.js";
import type { RouteIndex } from "../routes/index.js";

/**
 * The shells {@link completionScript} supports.
 *
 * @example
 * COMPLETION_SHELLS.includes("bash"); // true
 */
export const COMPLETION_SHELLS = ["bash", "zsh"] as const;

/**
 * One of {@link COMPLETION_SHELLS}.
 *
 * @example
 * const shell: CompletionShell = "zsh";
 */
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/**
 * The completion script of a brand for a shell. The script holds no routes:
 * on every Tab it calls `<brand> __complete -- <words…>`, which reads only the
 * cached route table, so it never goes stale after an install.
 *
 * @example
 * process.stdout.write(completionScript("bash", "acme")); // eval "$(acme completion bash)"
 */
export function completionScript(shell: string, brand: string): string {
  if (!BRAND_PATTERN.test(brand))
    throw new CliError(
      "invalid_option",
      `brand ${JSON.stringify(brand)} must match ${BRAND_PATTERN}`,
    );
  const fn = `_${brand.replaceAll("-", "_")}_complete`;
  switch (shell) {
    case "bash":
      return [
        `# bash completion for ${brand}; load with: eval "$(${brand} completion bash)"`,
        `${fn}() {`,
        "  local IFS=$'\\n'",
        `  COMPREPLY=($(${brand} __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))`,
        "}",
        `complete -o default -F ${fn} ${brand}`,
        "",
      ].join("\n");
    case "zsh":
      return [
        `#compdef ${brand}`,
        `# zsh completion for ${brand}; load with: eval "$(${brand} completion zsh)"`,
        `${fn}() {`,
        "  local -a reply",
        `  reply=("\${(@f)$(${brand} __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")`,
        `  reply=("\${(@)reply:#}")`,
        `  if (( \${#reply} )); then compadd -- "\${reply[@]}"; else _files; fi`,
        "}",
        `compdef ${fn} ${brand}`,
        "",
      ].join("\n");
    default:
      throw new CliError(
        "unknown_shell",
        `no completion for shell ${JSON.stringify(shell)}; expected one of ${COMPLETION_SHELLS.join(", ")}`,
      );
  }
}

const GLOBAL = ["--help", "--json", "--no-color"];

/**
 * Candidates for the last word of `words` (the words after the brand, the
 * last one being completed, possibly empty): subcommands of the group typed
 * so far, the flags of a command, or the values of an enum flag.
 */
export async function complete(
  index: RouteIndex,
  words: readonly string[],
  stateDir?: string,
): Promise<string[]> {
  const current = words.at(-1) ?? "";
  const before = words.slice(0, -1);
  const r = index.resolve(before);
  const match = (xs: Iterable<string>) =>
    [...new Set(xs)].filter((x) => x.startsWith(current)).sort();
  if (r.kind === "root" || r.kind === "group") {
    if (current.startsWith("-"))
      return match([...GLOBAL, ...(r.kind === "root" ? ["--version", "--home"] : [])]);
    const { groups, entries } = index.children(r.kind === "root" ? [] : r.group.path);
    return match([...groups, ...entries].map((e) => e.path.at(-1)!));
  }
  if (r.kind !== "target") return [];
  let cli: CliCommandSpec;
  let suggest: ((id: string) => Promise<readonly string[]>) | undefined;
  if (r.entry.target.kind === "builtin") {
    const b = r.entry.target.builtin;
    if (r.entry.path.join(" ") === "completion" && before.length === r.words)
      return match(["bash", "zsh"]);
    if (r.entry.path.join(" ") === "help") return complete(index, words.slice(r.words), stateDir);
    const d = await declared(b);
    if (d === undefined) return [];
    // A declared built-in completes like an extension command, and its own values too.
    cli = d.cli;
    if (b.suggest !== undefined && stateDir !== undefined) {
      const ask = b.suggest.bind(b);
      suggest = async (id) => await Promise.resolve(ask(id, stateDir)).catch(() => []);
    }
  } else cli = r.entry.target.load().cli;
  if (cli.passthrough) return [];
  const prev = before.at(-1);
  const prevFlag = cli.flags.find((f) => prev === `--${f.flag}` || prev === `-${f.short}`);
  if (prevFlag !== undefined && !(prevFlag.valueType === "boolean" && !prevFlag.list)) {
    if (prevFlag.valueType === "enum") return match(prevFlag.placeholder.slice(1, -1).split("|"));
    return suggest === undefined ? [] : match(await suggest(prevFlag.id));
  }
  if (current.startsWith("-")) return match([...GLOBAL, ...cli.flags.map((f) => `--${f.flag}`)]);
  if (suggest !== undefined) {
    // The positional being typed: count the words after the path that are not flags or their values.
    let n = 0;
    for (let i = r.words; i < before.length; i++) {
      const w = before[i]!;
      const f = cli.flags.find((x) => w === `--${x.flag}` || w === `-${x.short}`);
      if (f !== undefined) {
        if (!(f.valueType === "boolean" && !f.list)) i++;
        continue;
      }
      if (!w.startsWith("-")) n++;
    }
    const p = cli.positionals[Math.min(n, cli.positionals.length - 1)];
    if (p !== undefined && (n < cli.positionals.length || p.list)) {
      if (p.valueType === "enum") return match(p.placeholder.slice(1, -1).split("|"));
      return match(await suggest(p.id));
    }
  }
  return [];
}
