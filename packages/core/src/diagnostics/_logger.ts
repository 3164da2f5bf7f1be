// The diagnostics log's line writer: one JSON object per line, in the shape
// log tools for Node already read (`level` as a number — debug 20, info 30,
// warn 40, error 50 — `time` as ISO 8601, the entry's fields, then `msg`).
// It formats only; where a line goes, and what a failed write means, is the
// caller's (see `DiagnosticsSink`). Formatting never throws: an error is
// written as its type, message, code, errno, syscall, path, stack and
// causes; a value that cannot be written as JSON (a cycle, a BigInt) is
// written as a string saying so.

/** The levels of a diagnostics entry. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const LEVEL_NUMBER: Readonly<Record<LogLevel, number>> = {
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
};

/** Writes entries of every level; `fields` are merged into the line, `message` is its `msg`. */
export type Logger = Readonly<
  Record<LogLevel, (fields: Readonly<Record<string, unknown>>, message: string) => void>
>;

const MAX_CAUSES = 8;

function errorFields(e: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.constructor?.name ?? "Error", message: e.message };
  // What a system error says of itself (pino kept these too).
  for (const key of ["code", "errno", "syscall", "path"] as const) {
    const v = (e as unknown as Record<string, unknown>)[key];
    if (typeof v === "string" || typeof v === "number") out[key] = v;
  }
  if (e.stack !== undefined) out.stack = e.stack;
  if (e.cause !== undefined)
    out.cause =
      e.cause instanceof Error && depth < MAX_CAUSES
        ? errorFields(e.cause, depth + 1)
        : String(e.cause);
  return out;
}

function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (value instanceof Error) return errorFields(value, 0);
  if (typeof value === "bigint") return value.toString();
  return value;
}

function lineOf(level: LogLevel, fields: Readonly<Record<string, unknown>>, message: string) {
  const entry = {
    level: LEVEL_NUMBER[level],
    time: new Date().toISOString(),
    ...fields,
    msg: message,
  };
  try {
    return `${JSON.stringify(entry, replacer)}\n`;
  } catch (e) {
    // A cycle among the fields: keep what is certain, and say what was lost.
    return `${JSON.stringify({
      level: entry.level,
      time: entry.time,
      msg: message,
      unwritable: `the entry's fields could not be written as JSON: ${(e as Error).message}`,
    })}\n`;
  }
}

/**
 * A logger that hands each entry, formatted as one JSON line, to `write`.
 *
 * @example
 * const lines: string[] = [];
 * jsonLinesLogger((l) => lines.push(l)).error({ err: new Error("full") }, "could not archive");
 */
export function jsonLinesLogger(write: (line: string) => void): Logger {
  const at = (level: LogLevel) => (fields: Readonly<Record<string, unknown>>, message: string) =>
    write(lineOf(level, fields, message));
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
