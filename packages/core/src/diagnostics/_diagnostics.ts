import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LogMessage } from "@rukh/ipc";
import type { InvocationDiagnostics } from "../contract/index.js";
import { DIAGNOSTICS_MAX_BYTES } from "../contract/index.js";
import { jsonLinesLogger, type Logger } from "./_logger.js";

/** The owner's diagnostics log of a state directory. */
export function diagnosticsFile(stateRoot: string): string {
  return join(stateRoot, "logs", "diagnostics.log");
}

// What Node, V8, glibc and C++ print when an allocation fails (as under the memory limit).
const ALLOCATION_FAILURE =
  /out of memory|allocation failed|Cannot allocate memory|std::bad_alloc|MemoryError|Fatal process OOM/i;

/**
 * The log file the logger writes to: synchronous, and soft. A write that fails or
 * lands short (a full disk, a removed directory) is counted, never thrown and
 * never emitted as an error event: diagnostics must not end the host or the
 * call they describe. A file that could not be opened is tried again at the
 * next write, so logging resumes once the cause is gone.
 */
class SoftLogFile {
  readonly #file: string;
  #fd: number | undefined;
  /** Writes lost so far. */
  failures = 0;

  constructor(file: string) {
    this.#file = file;
  }

  write(line: string): void {
    try {
      if (this.#fd === undefined) {
        mkdirSync(dirname(this.#file), { recursive: true, mode: 0o700 });
        // Never through a link: the log is appended where it is, or not at all.
        this.#fd = openSync(
          this.#file,
          constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
          0o600,
        );
      }
      const bytes = Buffer.from(line);
      if (writeSync(this.#fd, bytes) < bytes.length) this.failures++;
    } catch {
      this.failures++;
    }
  }

  end(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** One logger per core, writing synchronously to the owner's file. */
export class DiagnosticsSink {
  readonly file: string;
  readonly logger: Logger;
  readonly #destination: SoftLogFile;

  constructor(stateRoot: string) {
    this.file = diagnosticsFile(stateRoot);
    this.#destination = new SoftLogFile(this.file);
    const destination = this.#destination;
    this.logger = jsonLinesLogger((line) => destination.write(line));
  }

  /** Log writes lost so far by this core (full disk, missing directory). */
  get writeFailures(): number {
    return this.#destination.failures;
  }

  invocation(invocationId: string, command: string, maxBytes: number): InvocationDiagnosticsBudget {
    return new InvocationDiagnosticsBudget(this, invocationId, command, maxBytes);
  }

  close(): void {
    this.#destination.end();
  }
}

/**
 * Drains one invocation's streams and log frames: keeps at most `maxBytes` in
 * the owner's log and counts the rest as dropped. Chunks are never buffered.
 */
export class InvocationDiagnosticsBudget {
  readonly #sink: DiagnosticsSink;
  readonly #context: { invocationId: string; command: string };
  readonly #max: number;
  #kept = 0;
  stdoutBytes = 0;
  stderrBytes = 0;
  droppedBytes = 0;
  /** Whether the command's stderr or log reported a failed memory allocation (its runtime's own words). */
  allocationFailed = false;
  /** This invocation's log writes that were lost (counted in the outcome, never thrown). */
  logWriteFailures = 0;
  #used = false;

  /** Writes through the logger, counting what the log file lost of it. */
  #emit(write: (logger: Logger) => void): void {
    const before = this.#sink.writeFailures;
    write(this.#sink.logger);
    this.logWriteFailures += this.#sink.writeFailures - before;
  }

  constructor(sink: DiagnosticsSink, invocationId: string, command: string, maxBytes: number) {
    this.#sink = sink;
    this.#context = { invocationId, command };
    this.#max = Math.min(Math.max(0, maxBytes), DIAGNOSTICS_MAX_BYTES);
  }

  #take(n: number): number {
    const room = Math.max(0, this.#max - this.#kept);
    const keep = Math.min(room, n);
    this.#kept += keep;
    this.droppedBytes += n - keep;
    return keep;
  }

  stream(name: "stdout" | "stderr", chunk: Buffer): void {
    this.#used = true;
    if (name === "stdout") this.stdoutBytes += chunk.length;
    else {
      this.stderrBytes += chunk.length;
      if (!this.allocationFailed && ALLOCATION_FAILURE.test(chunk.toString("latin1")))
        this.allocationFailed = true;
    }
    const keep = this.#take(chunk.length);
    if (keep > 0)
      this.#emit((l) =>
        l.info(
          { ...this.#context, stream: name, text: chunk.subarray(0, keep).toString("utf8") },
          name,
        ),
      );
  }

  log(entry: LogMessage): void {
    this.#used = true;
    if (!this.allocationFailed && ALLOCATION_FAILURE.test(entry.message))
      this.allocationFailed = true;
    // A log line is kept whole or dropped whole.
    const bytes = Buffer.byteLength(entry.message);
    if (this.#kept + bytes > this.#max) {
      this.droppedBytes += bytes;
      return;
    }
    this.#kept += bytes;
    this.#emit((l) => l[entry.level]({ ...this.#context, stream: "log" }, entry.message));
  }

  note(fields: Record<string, unknown>, message: string): void {
    this.#used = true;
    this.#emit((l) => l.info({ ...this.#context, ...fields }, message));
  }

  summary(): InvocationDiagnostics {
    return {
      stdoutBytes: this.stdoutBytes,
      stderrBytes: this.stderrBytes,
      droppedBytes: this.droppedBytes,
      ...(this.#used && { logFile: this.#sink.file }),
      ...(this.logWriteFailures > 0 && { logWriteFailures: this.logWriteFailures }),
    };
  }
}

/** Diagnostics of a call that ran nothing. */
export const NO_DIAGNOSTICS: InvocationDiagnostics = Object.freeze({
  stdoutBytes: 0,
  stderrBytes: 0,
  droppedBytes: 0,
});
