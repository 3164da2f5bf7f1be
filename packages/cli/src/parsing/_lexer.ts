// The words after a command path, read by one rule set (R13): which
// are the CLI's own, which flag or positional each one is, and how an input
// issue reads in command-line terms. Every conversion to a typed value is
// the descriptor's (`decodeCliInputs`).

import type { CliCommandSpec, CliParameter, InputIssueCode } from "@rukh/descriptor";
import type { ValidationIssue } from "@rukh/json";
import { nearestWord } from "@rukh/json";

/** What the lexer found: raw tokens per input id, and the global flags given after the route. */
export type Lexed =
  | {
      readonly ok: true;
      readonly raw: Map<string, string[]>;
      readonly json: boolean;
      readonly noColor: boolean;
    }
  | { readonly ok: false; readonly message: string };

/** The words after a command path that are the CLI's to read: those before a `--`. */
export function ownFlags(after: readonly string[]): readonly string[] {
  const end = after.indexOf("--");
  return end === -1 ? after : after.slice(0, end);
}

/** True when `--help`/`-h` appears before a `--`. */
export function wantsHelp(tokens: readonly string[]): boolean {
  for (const t of tokens) {
    if (t === "--") return false;
    if (t === "--help" || t === "-h") return true;
  }
  return false;
}

const isBool = (p: CliParameter) => p.valueType === "boolean" && !p.list;

/** How an input is named to the user: `--flag` or `<positional>`. */
function displayName(p: CliParameter): string {
  return p.flag !== undefined ? `--${p.flag}` : p.placeholder;
}

/** A word that reads as a flag: a dash and a character that is not a digit (`-5` is a number, `-` a word). */
const looksLikeFlag = (t: string) =>
  t.length > 1 && t[0] === "-" && !(t[1]! >= "0" && t[1]! <= "9");

/** What the words of `--json` and `--no-color` are, after the route as before it. */
const GLOBAL_FLAGS = new Set(["--json", "--no-color"]);

function unknownFlag(cli: CliCommandSpec, typed: string): string {
  const close = nearestWord(
    typed.replace(/^--?/, ""),
    cli.flags.map((p) => p.flag!),
  );
  const known = cli.flags.length > 0 ? "" : "; this command takes no flags";
  return `unknown flag ${typed}${close !== undefined ? `; did you mean --${close}?` : known}`;
}

/**
 * Splits the words after a command path into raw text per input id, by one
 * rule set and nothing else (R13): `--flag value`, `--flag=value`,
 * `-f value` and `-f=value` for a value flag (a following word that looks
 * like a flag is not taken as its value; a negative number is); a boolean
 * flag alone or as `--flag=true|false`; every flag repeatable (the decoder
 * says which may not be); no flag groups, negations, dots or camel-case
 * aliases; `--` ends flags. Positionals are assigned afterwards. Every
 * conversion to a typed value happens later in `decodeCliInputs`.
 */
export function lex(cli: CliCommandSpec, tokens: readonly string[]): Lexed {
  const raw = new Map<string, string[]>();
  const add = (id: string, value: string) => {
    const list = raw.get(id);
    if (list === undefined) raw.set(id, [value]);
    else list.push(value);
  };
  const named = new Map<string, CliParameter>();
  for (const p of cli.flags) {
    named.set(`--${p.flag}`, p);
    if (p.short !== undefined) named.set(`-${p.short}`, p);
  }
  const positionals: string[] = [];
  const globals = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === "--") {
      positionals.push(...tokens.slice(i + 1));
      break;
    }
    if (!looksLikeFlag(t)) {
      positionals.push(t);
      continue;
    }
    const eq = t.indexOf("=");
    const name = eq > 0 ? t.slice(0, eq) : t;
    if (name === "--home")
      return {
        ok: false,
        message: "--home must come before the command path; expected --home <dir> first",
      };
    if (GLOBAL_FLAGS.has(name)) {
      if (eq > 0) return { ok: false, message: `${name} takes no value; expected ${name} alone` };
      globals.add(name);
      continue;
    }
    const p = named.get(name);
    if (p === undefined) return { ok: false, message: unknownFlag(cli, name) };
    if (eq > 0) add(p.id, t.slice(eq + 1));
    else if (isBool(p)) add(p.id, "true");
    else {
      const next = tokens[i + 1];
      if (next === undefined || next === "--" || looksLikeFlag(next))
        return {
          ok: false,
          message: `${name} needs a value ${p.placeholder}; for a value that starts with "-" write ${name}=VALUE`,
        };
      add(p.id, next);
      i++;
    }
  }
  let i = 0;
  for (const p of cli.positionals) {
    if (i >= positionals.length) break;
    if (p.list) {
      raw.set(p.id, positionals.slice(i));
      i = positionals.length;
    } else add(p.id, positionals[i++]!);
  }
  if (i < positionals.length) {
    const extra = positionals[i]!;
    const takes =
      cli.positionals.length === 0
        ? "it takes no arguments"
        : `expected at most ${cli.positionals.length}: ${cli.positionals.map((p) => p.placeholder).join(" ")}`;
    return {
      ok: false,
      message: `unexpected argument ${JSON.stringify(extra)}; ${takes}`,
    };
  }
  return { ok: true, raw, json: globals.has("--json"), noColor: globals.has("--no-color") };
}

function unescapePointer(s: string): string {
  return s.replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * Restates an input issue (path `/<input id>` or `/<input id>/<index>`) in
 * command-line terms: which flag or positional, and what was expected.
 */
export function issueMessage(cli: CliCommandSpec, issue: ValidationIssue<InputIssueCode>): string {
  const [, id, index] = issue.path.split("/").map(unescapePointer);
  const p = [...cli.flags, ...cli.positionals].find((q) => q.id === id);
  if (p === undefined) return `${issue.path || "input"}: ${issue.message}`;
  const name = displayName(p);
  if (issue.code === "missing_required")
    return `${name} is required; expected ${p.flag !== undefined ? `${name} ${p.placeholder}` : `a value for ${name}`}`;
  if (issue.code === "repeated_input")
    return `${name} ${issue.message.replace(/^given/, "was given")}`;
  const where = index !== undefined ? `${name} (value ${Number(index) + 1})` : name;
  return `${where}: ${issue.message}`;
}
