// The access log: one JSON line per HTTP request for whoever runs the host,
// written through pino when the request's response closes. A line says
// which replica served it, in which era, what was asked (the JSON-RPC method
// and, for a call, the tool), for whom (the subject its credential proved),
// what came of it, its HTTP status and how long it took. It never holds the
// credential, a header, the arguments or the result. It is not the host's
// diagnostics (its McpLogger): those keep their own lines and destination.

import type { IncomingMessage, ServerResponse } from "node:http";
import { hostname } from "node:os";
import { replaceInvisible } from "@rukh/json";
import { McpError, type McpLogger } from "../hosting/index.js";

const LEVELS: readonly string[] = ["info", "warn", "silent"];

/**
 * The access log of an HTTP host ({@link ServeHttpOptions.accessLog}): one
 * JSON line per HTTP request, written through pino.
 *
 * @example
 * const accessLog: HttpAccessLog = { level: "info", replica: "mcp-eu-1" };
 */
export interface HttpAccessLog {
  /**
   * `info`: every request (what was answered at pino's info level, 30; what
   * was refused, failed or cancelled at warn, 40); `warn`: only those at
   * warn; `silent`: none.
   */
  readonly level: "info" | "warn" | "silent";
  /** Where the lines go, one `write` per line; default stdout. */
  readonly destination?: { write(line: string): unknown };
  /** What names this host among its replicas in each line; default `hostname:pid`. */
  readonly replica?: string;
}

/**
 * What one request's line says beyond its status and duration, filled in as
 * the request is read and answered; `null` is what is not known (a request
 * refused before its body is read has no method, nor one before
 * authentication a subject).
 */
export interface AccessRecord {
  /** The protocol version it is served in: 2026-07-28, or the 2025 version it names. */
  era: string | null;
  method: string | null;
  /** The tool a `tools/call` names. */
  tool: string | null;
  /** The subject its credential proved. */
  subject: string | null;
  /** What came of it, when its answer says more than its status: a call's outcome, `cancelled`. */
  outcome?: string;
  /** Its answer is a JSON-RPC error (some travel with status 200). */
  error?: boolean;
}

/** Opens each request's record; its line is written once its response closes. */
export interface AccessLogger {
  open(req: IncomingMessage, res: ServerResponse): AccessRecord;
  /** Writes out what the destination still buffers. */
  flush(): void;
}

/** Most characters of a word from outside (a method, a tool name, a subject) a line keeps. */
const WORD_MAX = 256;

// Control characters, and DEL and the C1 controls JSON leaves as they are.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const visible = (codePoint: number) => `\\u{${codePoint.toString(16)}}`;

/**
 * A word from outside as a line keeps it: at most {@link WORD_MAX}
 * characters, each control and hidden character written as a visible escape
 * (`\u{1b}`, `\u{202e}`), so a line read on a terminal (`tail -f`) shows
 * what was sent and obeys none of it.
 */
export function logWord(w: string): string {
  const cut = w.length <= WORD_MAX ? w : `${w.slice(0, WORD_MAX)}…`;
  return replaceInvisible(
    cut.replace(CONTROL, (c) => visible(c.charCodeAt(0))),
    visible,
  );
}

/** A record that goes nowhere: what a host without an access log fills in. */
export const unlogged = (): AccessRecord => ({
  era: null,
  method: null,
  tool: null,
  subject: null,
});

/**
 * The access logger `options` ask for, or `undefined` for none (no options,
 * or `silent`); throws `invalid_options` for a level or replica it cannot
 * use. pino is loaded only for a host that logs. A destination that throws
 * loses its line and is reported once to `diagnostics`; the request it
 * served is not affected.
 */
export async function accessLogger(
  options: HttpAccessLog | undefined,
  diagnostics: McpLogger,
): Promise<AccessLogger | undefined> {
  if (options === undefined) return undefined;
  if (!LEVELS.includes(options.level))
    throw new McpError(
      "invalid_options",
      `accessLog.level must be one of ${LEVELS.join(", ")}, not ${JSON.stringify(options.level)}`,
    );
  const replica = options.replica ?? `${hostname()}:${process.pid}`;
  if (typeof replica !== "string" || replica === "" || replica.length > 256)
    throw new McpError("invalid_options", "accessLog.replica must be 1 to 256 characters");
  if (options.level === "silent") return undefined;
  const { default: pino } = await import("pino");
  const log = pino(
    {
      level: options.level,
      // The replica, in place of pino's pid and hostname.
      base: { replica },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
  let reported = false;
  const write = (failed: boolean, line: object) => {
    try {
      if (failed) log.warn(line, "access");
      else log.info(line, "access");
    } catch (e) {
      if (!reported) diagnostics.log("error", "access log write failed", { error: String(e) });
      reported = true;
    }
  };
  return {
    open(req, res) {
      const started = performance.now();
      const record = unlogged();
      res.once("close", () => {
        const status = res.headersSent ? res.statusCode : null;
        const outcome =
          record.outcome ??
          (res.writableFinished ? outcomeOf(status ?? 500, record.error === true) : "cancelled");
        const line = {
          era: record.era,
          method: record.method,
          tool: record.tool,
          subject: record.subject,
          outcome,
          status,
          httpMethod: req.method ?? null,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        };
        write((status ?? 0) >= 400 || (outcome !== "answered" && outcome !== "succeeded"), line);
      });
      return record;
    },
    flush: () => log.flush(),
  };
}

/**
 * What a request whose answer names no outcome came to: `refused` (4xx, or
 * 503 while the host closes), `failed` (another 5xx, or a JSON-RPC error
 * that travels with 200), else `answered`.
 */
function outcomeOf(status: number, error: boolean): string {
  if ((status >= 400 && status < 500) || status === 503) return "refused";
  if (status >= 500 || error) return "failed";
  return "answered";
}
