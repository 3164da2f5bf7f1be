// One host's side of the journal: its live segment parts, the finals it still
// owes, rolling over to a new part and archiving the full ones in order.

import type { StateLocks } from "@rukh/profile";
import type { HostBinding } from "./_api.js";
import { archiveSegment, type JournalRetention } from "./_archive.js";
import {
  type JournalFinalRecord,
  type JournalRecord,
  JournalWriter,
  journalTuning,
} from "./_journal.js";
import { JOURNAL_RECORD_MAX_BYTES } from "./_limits.js";
import type { Logger } from "./_logger.js";
import type { InvocationDiagnostics, InvocationOutcome } from "./_outcome.js";

/** A call's diagnostics counts for its final record: only when it wrote anything. */
function diagnosticsFields(d: InvocationDiagnostics): Pick<JournalFinalRecord, "diagnostics"> {
  const failures = d.logWriteFailures ?? 0;
  if (d.stdoutBytes + d.stderrBytes + d.droppedBytes + failures === 0) return {};
  return {
    diagnostics: {
      stdoutBytes: d.stdoutBytes,
      stderrBytes: d.stderrBytes,
      droppedBytes: d.droppedBytes,
      ...(failures > 0 && { logWriteFailures: failures }),
    },
  };
}

/** Where one host journals, and what it reads only when a segment is archived. */
export interface HostJournalOptions {
  readonly stateRoot: string;
  /** The state directory's locks: this host's liveness, the archive's. */
  readonly locks: StateLocks;
  readonly host: string;
  readonly logger: Logger;
  readonly retention: () => Promise<JournalRetention>;
}

/**
 * The journal of one host. Appends are synchronous and whole (or nothing);
 * a final that cannot be written yet is owed and written before the next
 * record that can be.
 *
 * @example
 * const journal = new HostJournal({ stateRoot, locks, host, logger, retention });
 * if (!journal.appendSoftly(start)) return journalFailed();
 * journal.final(invocationId, identity, outcome);
 * await journal.close();
 */
export class HostJournal {
  readonly #o: HostJournalOptions;
  #writer: JournalWriter;
  #part = 0;
  /** Finals the journal could not take yet, oldest first. */
  readonly #unwritten: JournalRecord[] = [];
  /** The archiving of full segment parts, in order. */
  #archiving: Promise<unknown> = Promise.resolve();
  /** Start and process records of calls still running: what a new part must carry. */
  readonly #inFlight = new Map<string, JournalRecord[]>();

  constructor(options: HostJournalOptions) {
    this.#o = options;
    this.#writer = JournalWriter.create(options.stateRoot, options.host);
  }

  /** Appends what is still owed, then `record`; throws `journal_failed` and keeps nothing half-written. */
  append(record: JournalRecord): void {
    this.#payDebts();
    this.#writer.append(record);
    if (record.type === "final") this.#inFlight.delete(record.invocationId);
    else
      this.#inFlight.set(record.invocationId, [
        ...(this.#inFlight.get(record.invocationId) ?? []),
        record,
      ]);
    if (this.#writer.size > journalTuning.liveSegmentBytes) this.#rollOver();
  }

  /** {@link append}, logging instead of throwing; says whether the record is on disk. */
  appendSoftly(record: JournalRecord): boolean {
    try {
      this.append(record);
      return true;
    } catch (e) {
      this.#o.logger.error(
        { err: e, record: record.type },
        "a journal record could not be written",
      );
      return false;
    }
  }

  /**
   * Records the final of a call. The outcome happened whether or not it is
   * on disk yet: when it is not, its record is owed.
   */
  final(
    invocationId: string,
    command: string | undefined,
    outcome: InvocationOutcome,
    by?: HostBinding,
  ): void {
    let record: JournalFinalRecord = {
      type: "final",
      invocationId,
      at: new Date().toISOString(),
      host: this.#o.host,
      outcome: outcome.outcome,
      reason: outcome.reason,
      ...(command !== undefined && { command }),
      ...diagnosticsFields(outcome.diagnostics),
      ...(outcome.resultIssues !== undefined && {
        resultIssues: outcome.resultIssues.map(({ path, code }) => ({ path, code })),
      }),
      ...(by !== undefined && {
        by: {
          subject: by.subject,
          actor: by.actor,
          taskAuthorityRef: by.taskAuthorityRef,
          preset: by.preset,
        },
      }),
    };
    // A final always fits a record: the problems' pointers go first if it would not.
    if (
      record.resultIssues !== undefined &&
      Buffer.byteLength(JSON.stringify(record)) > JOURNAL_RECORD_MAX_BYTES / 2
    ) {
      const { resultIssues: _, ...rest } = record;
      record = rest;
    }
    if (!this.appendSoftly(record)) this.#unwritten.push(record);
  }

  /**
   * Writes what it can of what is owed, closes the live part and archives it
   * when nothing is owed; a part still owing finals stays live, and the next
   * start finishes it.
   */
  async close(): Promise<void> {
    try {
      this.#payDebts();
    } catch {}
    this.#writer.close();
    await this.#archiving;
    if (this.#unwritten.length === 0)
      await this.#archive(this.#writer.file).catch((e) =>
        this.#o.logger.error({ err: e }, "the journal segment could not be archived yet"),
      );
  }

  #payDebts(): void {
    while (this.#unwritten.length > 0) {
      this.#writer.append(this.#unwritten[0]!);
      this.#unwritten.shift();
    }
  }

  #archive(file: string): Promise<boolean> {
    return archiveSegment(file, this.#o);
  }

  /**
   * Starts the next segment part, carrying the records of the calls still
   * running (so each part is whole for recovery), and archives the full one:
   * a host that runs for months keeps a bounded live segment.
   */
  #rollOver(): void {
    let next: JournalWriter;
    try {
      next = JournalWriter.create(this.#o.stateRoot, this.#o.host, undefined, this.#part + 1);
      for (const records of this.#inFlight.values()) for (const r of records) next.append(r);
    } catch (e) {
      this.#o.logger.error({ err: e }, "the journal could not roll over yet");
      return;
    }
    const full = this.#writer;
    this.#writer = next;
    this.#part++;
    full.close();
    this.#archiving = this.#archiving
      .then(() => this.#archive(full.file))
      .catch((e) =>
        this.#o.logger.error({ err: e }, "a full journal segment could not be archived yet"),
      );
  }
}
