// How an administrative command fails: the errors its body throws, each
// with its exit code, and the one way every failure is reported — for
// people on stderr, ending with a runnable line that shows the way on, or as
// the --json envelope's error on stdout, that line its `recovery`.

import {
  type BuiltinContext,
  commandLine,
  printEnvelope,
  terminalBlock,
  terminalText,
} from "@rukh/cli";
import type { ValidationIssue } from "@rukh/json";
import { recoveryOf, UNEXPLAINED } from "./_recovery.js";

/** Exit codes of administrative commands (the same table as extension commands, docs/cli.md). */
export const OK = 0;
export const USAGE = 2;
export const REFUSED = 4;
export const STATE = 5;

/** What an error of an administrative command may carry beside its message. */
export interface FailureDetail {
  /**
   * The words, after the brand, of a command that shows the way on (`["ext",
   * "list"]`); without them, the failed command's `--help`.
   */
  readonly see?: readonly string[];
  /** Variables the line sets for that command alone (`ACME_JOURNAL_DIR=…`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Each problem found, with where it is. */
  readonly issues?: readonly ValidationIssue[];
}

/** A mistake in how the command was called: exit 2 with the message. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly detail: FailureDetail = {},
  ) {
    super(message);
  }
}

/** A well-formed request the profile's rules refuse: exit 4 with the message. */
export class Refusal extends Error {
  constructor(
    message: string,
    readonly detail: FailureDetail = {},
  ) {
    super(message);
  }
}

/**
 * The state directory cannot serve what was asked of it as it is (a
 * read-only copy without a journal directory): exit 5 with `code`.
 */
export class StateProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly detail: FailureDetail = {},
  ) {
    super(message);
  }
}

/**
 * Codes of a state directory that cannot be read as it should (exit 5, as a
 * call's `store_corrupt` is, R08): every other coded error is a refusal
 * (`io_error` too: it names a file the owner gave, such as a package).
 */
const STATE_CODES: ReadonlySet<string> = new Set([
  "invalid_state",
  "invalid_revision",
  "store_corrupt",
]);

/** An error of `@rukh/profile` or `@rukh/registry`: known by its shape, so that neither is loaded for it. */
interface CodedError extends Error {
  readonly code: string;
  readonly issues?: readonly ValidationIssue[];
}

/**
 * A `ProfileError` or a `RegistryError`, known by its name so that commands
 * that never reach a registry never load it.
 */
function isCoded(e: unknown): e is CodedError {
  return (
    e instanceof Error &&
    (e.name === "ProfileError" || e.name === "RegistryError") &&
    typeof (e as { code?: unknown }).code === "string"
  );
}

/** How one failure is reported. */
interface Failure {
  readonly exitCode: number;
  readonly code: string;
  readonly message: string;
  /** Shown before the message for people (`downgrade: `), for an error with a code of its own. */
  readonly prefix: string;
  readonly issues: readonly ValidationIssue[];
  readonly see: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

function failureOf(ctx: BuiltinContext, e: unknown): Failure {
  const message = (e as Error)?.message ?? String(e);
  const help = [...ctx.path, "--help"];
  if (e instanceof UsageError || e instanceof Refusal) {
    const usage = e instanceof UsageError;
    return {
      exitCode: usage ? USAGE : REFUSED,
      code: usage ? "usage" : "refused",
      message,
      prefix: "",
      issues: e.detail.issues ?? [],
      see: e.detail.see ?? help,
      env: e.detail.env ?? {},
    };
  }
  if (e instanceof StateProblem)
    return {
      exitCode: STATE,
      code: e.code,
      message,
      prefix: "",
      issues: [],
      see: e.detail.see ?? help,
      env: e.detail.env ?? {},
    };
  if (isCoded(e))
    return {
      exitCode: STATE_CODES.has(e.code) ? STATE : REFUSED,
      code: e.code,
      message,
      prefix: `${e.code}: `,
      issues: e.issues ?? [],
      see: recoveryOf(e.code, ctx.path),
      env: {},
    };
  return {
    exitCode: STATE,
    code: "state_error",
    message,
    prefix: "",
    issues: [],
    see: UNEXPLAINED,
    env: {},
  };
}

/** Reports an error of an administrative command of `brand` and returns its exit code. */
export function failed(ctx: BuiltinContext, brand: string, e: unknown): number {
  const f = failureOf(ctx, e);
  const recovery = commandLine([brand, ...f.see], f.env);
  if (ctx.json) {
    const issues = f.issues.map((i) => ({ path: i.path, code: i.code, message: i.message }));
    const error = {
      code: f.code,
      message: f.message,
      exitCode: f.exitCode,
      recovery,
      ...(issues.length > 0 && { issues }),
    };
    printEnvelope(ctx, { error });
    return f.exitCode;
  }
  // Every failure ends with the runnable line that shows the way on.
  if (f.exitCode === USAGE) return ctx.usage(terminalText(f.message), f.see);
  // A message or an issue may quote a package's text: the lines it breaks stay indented.
  ctx.stderr.write(`${brand}: ${f.prefix}${terminalBlock(f.message)}\n`);
  for (const i of f.issues)
    ctx.stderr.write(`  ${terminalBlock(i.path || "/")}: ${terminalBlock(i.message)}\n`);
  ctx.stderr.write(`See:\n  $ ${terminalText(recovery)}\n`);
  return f.exitCode;
}
