// One run of the CLI: where it writes, whether it colours, the global flags
// it was given, and the one way every part reports a usage or internal error.

import { type OutputError, outputEnvelope } from "./_envelope.js";
import { EXIT_CODES } from "./_exit.js";
import { ANSI, PLAIN, RUNNABLE, type Style } from "./_help.js";
import type { RouteIndex } from "./_routes.js";
import { commandLine } from "./_shell.js";
import { terminalBlock, terminalJson, terminalText } from "./_terminal.js";

/**
 * Where the CLI writes; `process.stdout`/`process.stderr` fit.
 *
 * @example
 * let text = "";
 * const stdout: CliStream = { write: (s: string) => (text += s), isTTY: false };
 */
export interface CliStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width, when it is one. */
  readonly columns?: number;
}

// One listener per stream, however many CLIs a process creates.
const safeStreams = new WeakMap<NodeJS.WriteStream, CliStream>();

/**
 * A process stream as the CLI writes to it: once its reader has gone (`acme
 * docs | head`), the rest of the output is dropped without a word, as a
 * pipeline expects, instead of ending the process with an EPIPE stack trace.
 * Any other write error still ends the process.
 *
 * @example
 * const stdout = readerSafe(process.stdout);
 */
export function readerSafe(stream: NodeJS.WriteStream): CliStream {
  let safe = safeStreams.get(stream);
  if (safe === undefined) {
    let gone = false;
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") gone = true;
      // Another error is the business of whoever else listens (an MCP host's channel);
      // with nobody else, it ends the process as it would without this listener.
      else if (stream.listenerCount("error") === 1) throw e;
    });
    safe = {
      write: (text: string) => gone || stream.write(text),
      get isTTY() {
        return stream.isTTY;
      },
      get columns() {
        return stream.columns;
      },
    };
    safeStreams.set(stream, safe);
  }
  return safe;
}

/** The flags before the command path (`--json` and `--no-color` may also follow it). */
export interface Globals {
  help: boolean;
  version: boolean;
  json: boolean;
  noColor: boolean;
  home?: string;
}

/** What every part of one run shares. */
export interface Session {
  readonly brand: string;
  readonly version: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  readonly outTTY: boolean;
  readonly errTTY: boolean;
  readonly g: Globals;
  /** The path of the command the words named, once they named one: what `--json` reports it as. */
  command: readonly string[] | null;
}

const hasColor = (s: Session, tty: boolean) =>
  tty && !s.g.noColor && !s.env.NO_COLOR && s.env.TERM !== "dumb";

/** The words after a command path that are the CLI's to read: those before a `--`. */
export function ownFlags(after: readonly string[]): readonly string[] {
  const end = after.indexOf("--");
  return end === -1 ? after : after.slice(0, end);
}

/** The style of stdout. */
export function outStyle(s: Session): Style {
  return hasColor(s, s.outTTY) ? ANSI : PLAIN;
}

/** The style of stderr. */
export function errStyle(s: Session): Style {
  return hasColor(s, s.errTTY) ? ANSI : PLAIN;
}

/**
 * Reports why the command stopped: with `--json` as the error envelope on
 * stdout (and nothing on stderr), otherwise `human` on stderr. Returns the
 * error's exit code.
 */
export function stopped(s: Session, error: OutputError, human: () => string): number {
  if (s.g.json) {
    const line = outputEnvelope(s.command, { error });
    s.stdout.write(s.outTTY ? terminalJson(line) : line);
  } else s.stderr.write(human());
  return error.exitCode;
}

/**
 * Prints each message as an error and the runnable line that shows how to
 * recover (with `--json`, one usage error with the line as its `recovery`);
 * exit 2.
 */
export function usageLines(
  s: Session,
  messages: readonly string[],
  recovery: readonly string[],
): number {
  const line = commandLine(recovery);
  const error = {
    code: "usage",
    message: messages.join("; "),
    exitCode: EXIT_CODES.usage,
    recovery: line,
  };
  return stopped(s, error, () => {
    const style = errStyle(s);
    // A message may quote what a publisher wrote: its lines stay inside the error.
    return `${messages.map((m) => `${style.error("error:")} ${terminalBlock(m)}\n`).join("")}See:\n${RUNNABLE}${terminalText(line)}\n`;
  });
}

/** {@link usageLines} for one message. */
export function usage(s: Session, message: string, recovery: readonly string[]): number {
  return usageLines(s, [message], recovery);
}

/** An unknown command path, with the nearest known one when there is one. */
export function unknownCommand(s: Session, index: RouteIndex, typed: readonly string[]): number {
  const near = index.suggest(typed);
  const shown = `${s.brand} ${typed.join(" ")}`;
  if (near !== undefined)
    return usage(s, `unknown command "${shown}"; did you mean "${s.brand} ${near.join(" ")}"?`, [
      s.brand,
      ...near,
      "--help",
    ]);
  return usage(s, `unknown command "${shown}"; expected a command listed by --help`, [
    s.brand,
    ...typed.slice(0, -1),
    "--help",
  ]);
}

/** Something that is not the user's mistake: exit 5 with the message. */
export function internal(s: Session, message: string): number {
  const error = { code: "state_error", message, exitCode: EXIT_CODES.internal };
  return stopped(s, error, () => `${errStyle(s).error("error:")} ${terminalBlock(message)}\n`);
}
