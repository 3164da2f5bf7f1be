// One run of the CLI: where it writes, whether it colours, the global flags
// it was given, and the one way every part reports a usage or internal error.

import { type OutputError, outputEnvelope } from "./_envelope.js";
import { EXIT_CODES } from "./_exit.js";
import { commandLine } from "./_shell.js";
import type { CliStream } from "./_stream.js";
import { ANSI, PLAIN, RUNNABLE, type Style } from "./_style.js";
import { terminalBlock, terminalJson, terminalText } from "./_terminal.js";

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

/** The style of stdout. */
export function outStyle(s: Session): Style {
  return hasColor(s, s.outTTY) ? ANSI : PLAIN;
}

/** The style of stderr. */
export function errStyle(s: Session): Style {
  return hasColor(s, s.errTTY) ? ANSI : PLAIN;
}

/**
 * Prints what people read — help, the version — as it is, or with `--json`
 * as the envelope's `result` (its text without color, and `data` beside it).
 */
export function shown(s: Session, text: (style: Style) => string, data: object = {}): void {
  if (!s.g.json) {
    s.stdout.write(text(outStyle(s)));
    return;
  }
  const line = outputEnvelope(s.command, { result: { ...data, text: text(PLAIN) } });
  s.stdout.write(s.outTTY ? terminalJson(line) : line);
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

/** Something that is not the user's mistake: exit 5 with the message. */
export function internal(s: Session, message: string): number {
  const error = { code: "state_error", message, exitCode: EXIT_CODES.internal };
  return stopped(s, error, () => `${errStyle(s).error("error:")} ${terminalBlock(message)}\n`);
}
