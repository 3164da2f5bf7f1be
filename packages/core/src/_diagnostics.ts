import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { LogMessage } from "@rukh/ipc";
import pino from "pino";
import { DIAGNOSTICS_MAX_BYTES } from "./_limits.js";
import type { InvocationDiagnostics } from "./_outcome.js";

/** The owner's diagnostics log of a state directory. */
export function diagnosticsFile(stateRoot: string): string {
  return join(stateRoot, "logs", "diagnostics.log");
}

// What Node, V8, glibc and C++ print when an allocation fails (as under RLIMIT_AS).
const ALLOCATION_FAILURE =
  /out of memory|allocation failed|Cannot allocate memory|std::bad_alloc|MemoryError|Fatal process OOM/i;

/** One pino logger per core, writing synchronously to the owner's file. */
export class DiagnosticsSink {
  readonly file: string;
  readonly logger: pino.Logger;
  readonly #destination: pino.DestinationStream & { end?: () => void; flushSync?: () => void };

  constructor(stateRoot: string) {
    this.file = diagnosticsFile(stateRoot);
    mkdirSync(join(stateRoot, "logs"), { recursive: true, mode: 0o700 });
    this.#destination = pino.destination({ dest: this.file, sync: true, mkdir: true });
    this.logger = pino(
      { level: "debug", base: null, timestamp: pino.stdTimeFunctions.isoTime },
      this.#destination,
    );
  }

  invocation(invocationId: string, command: string, maxBytes: number): InvocationDiagnosticsBudget {
    return new InvocationDiagnosticsBudget(this, invocationId, command, maxBytes);
  }

  close(): void {
    this.#destination.end?.();
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
  #used = false;

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
      this.#sink.logger.info(
        { ...this.#context, stream: name, text: chunk.subarray(0, keep).toString("utf8") },
        name,
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
    this.#sink.logger[entry.level]({ ...this.#context, stream: "log" }, entry.message);
  }

  note(fields: Record<string, unknown>, message: string): void {
    this.#used = true;
    this.#sink.logger.info({ ...this.#context, ...fields }, message);
  }

  summary(): InvocationDiagnostics {
    return {
      stdoutBytes: this.stdoutBytes,
      stderrBytes: this.stderrBytes,
      droppedBytes: this.droppedBytes,
      ...(this.#used && { logFile: this.#sink.file }),
    };
  }
}

/** Diagnostics of a call that ran nothing. */
export const NO_DIAGNOSTICS: InvocationDiagnostics = Object.freeze({
  stdoutBytes: 0,
  stderrBytes: 0,
  droppedBytes: 0,
});
