import type { CliCommandSpec, CliParameter, InputIssueCode } from "@rukh/descriptor";
import type { ValidationIssue } from "@rukh/json";
import { editDistance } from "./_routes.js";

/** What the lexer found: raw tokens per input id, and the global flags given after the route. */
export type Lexed =
  | {
      readonly ok: true;
      readonly raw: Map<string, string[]>;
      readonly json: boolean;
      readonly noColor: boolean;
    }
  | { readonly ok: false; readonly message: string };

/** True when `--help`/`-h` appears before a `--`. */
export function wantsHelp(tokens: readonly string[]): boolean {
  for (const t of tokens) {
    if (t === "--") return false;
    if (t === "--help" || t === "-h") return true;
  }
  return false;
}

const CONFIG = {
  "parse-numbers": false,
  "parse-positional-numbers": false,
  "camel-case-expansion": false,
  "dot-notation": false,
  "short-option-groups": false,
  "greedy-arrays": false,
  "boolean-negation": false,
  "duplicate-arguments-array": true,
  "strip-aliased": true,
  "strip-dashed": false,
  "populate--": false,
  "unknown-options-as-args": false,
} as const;

type YargsFactory = typeof import("yargs").default;
let yargsFactory: YargsFactory | undefined;

/** Loads yargs on first use: listing, help and completion never pay for it. */
async function loadYargs(): Promise<YargsFactory> {
  yargsFactory ??= (await import("yargs")).default;
  return yargsFactory;
}

const isBool = (p: CliParameter) => p.valueType === "boolean" && !p.list;

/** How an input is named to the user: `--flag` or `<positional>`. */
export function displayName(p: CliParameter): string {
  return p.flag !== undefined ? `--${p.flag}` : p.placeholder;
}

function closestFlag(cli: CliCommandSpec, name: string): string | undefined {
  let best: { flag: string; d: number } | undefined;
  for (const p of cli.flags) {
    const d = editDistance(name, p.flag!);
    if (best === undefined || d < best.d) best = { flag: p.flag!, d };
  }
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 3))
    ? best.flag
    : undefined;
}

/**
 * Splits the words after a command path into raw text per input id with
 * yargs (every flag a string, no coercion of any kind, strict about options),
 * then assigns positionals. Every conversion to a typed value happens later in
 * `decodeCliInputs`.
 */
export async function lex(cli: CliCommandSpec, tokens: readonly string[]): Promise<Lexed> {
  const raw = new Map<string, string[]>();
  const add = (id: string, value: string) => {
    const list = raw.get(id);
    if (list === undefined) raw.set(id, [value]);
    else list.push(value);
  };
  const bools = new Map<string, CliParameter>();
  for (const p of cli.flags)
    if (isBool(p)) {
      bools.set(`--${p.flag}`, p);
      if (p.short !== undefined) bools.set(`-${p.short}`, p);
    }
  // A boolean flag is a presence flag for yargs (nargs 0); its `=value` form
  // is taken out here so the exact text reaches the decoder.
  const rest: string[] = [];
  let afterDashes = false;
  for (const t of tokens) {
    if (!afterDashes && t === "--") afterDashes = true;
    const eq = t.indexOf("=");
    const p = !afterDashes && eq > 0 ? bools.get(t.slice(0, eq)) : undefined;
    if (p !== undefined) add(p.id, t.slice(eq + 1));
    else if (!afterDashes && t.startsWith("--home") && (t === "--home" || t[6] === "="))
      return {
        ok: false,
        message: "--home must come before the command path; expected --home <dir> first",
      };
    else rest.push(t);
  }

  const yargs = await loadYargs();
  let failure: string | undefined;
  const y = yargs(rest)
    .parserConfiguration(CONFIG)
    .strictOptions()
    .exitProcess(false)
    .help(false)
    .version(false)
    .showHelpOnFail(false)
    .fail((msg: string | undefined, err: Error | undefined) => {
      failure = msg ?? err?.message ?? "invalid command line";
      throw new Error(failure);
    });
  for (const p of cli.flags)
    y.option(p.flag!, {
      type: "string",
      nargs: isBool(p) ? 0 : 1,
      ...(p.short !== undefined && { alias: p.short }),
    });
  y.option("json", { type: "string", nargs: 0 });
  y.option("no-color", { type: "string", nargs: 0 });
  let parsed: Record<string, unknown>;
  try {
    parsed = y.parseSync() as Record<string, unknown>;
  } catch (e) {
    return { ok: false, message: yargsMessage(cli, failure ?? String(e), rest) };
  }
  for (const p of cli.flags) {
    const v = parsed[p.flag!];
    if (v === undefined) continue;
    for (const s of Array.isArray(v) ? v : [v]) add(p.id, isBool(p) ? "true" : String(s));
  }
  const positionals = ((parsed._ as unknown[]) ?? []).map(String);
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
  return {
    ok: true,
    raw,
    json: parsed.json !== undefined,
    noColor: parsed["no-color"] !== undefined,
  };
}

function yargsMessage(cli: CliCommandSpec, msg: string, tokens: readonly string[]): string {
  // yargs strips the dashes; show the flag as it was typed.
  const dashed = (name: string) =>
    tokens
      .find((t) => /^--?[^-]/.test(t) && t.replace(/^--?/, "").split("=")[0] === name)
      ?.split("=")[0] ?? (name.length === 1 ? `-${name}` : `--${name}`);
  let m = /^Unknown arguments?: (.*)$/s.exec(msg);
  if (m !== null) {
    const name = m[1]!.split(", ")[0]!;
    if (/^-?\d/.test(name))
      return `unknown flag -${name}; to pass a value that starts with "-" write --flag=${"-"}${name} or put it after --`;
    const close = closestFlag(cli, name);
    const known = cli.flags.length > 0 ? "" : "; this command takes no flags";
    return `unknown flag ${dashed(name)}${close !== undefined ? `; did you mean --${close}?` : known}`;
  }
  m = /^Not enough arguments following: (.*)$/s.exec(msg);
  if (m !== null) {
    const p = cli.flags.find((f) => f.flag === m![1] || f.short === m![1]);
    return `${dashed(m[1]!)} needs a value${p !== undefined ? ` ${p.placeholder}` : ""}; for a value that starts with "-" write ${dashed(m[1]!)}=VALUE`;
  }
  m = /^Argument unexpected for: (.*)$/s.exec(msg);
  if (m !== null) return `${dashed(m[1]!)} takes no value; expected ${dashed(m[1]!)} alone`;
  return msg;
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
