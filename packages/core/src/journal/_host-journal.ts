// One host's side of the journal: its live segment parts, the finals it still
// owes, rolling over to a new part and archiving the full ones in order.

import { rmSync } from "node:fs";
import type { StateLocks } from "@rukh/profile";
import type { HostBinding, InvocationDiagnostics, InvocationOutcome } from "../contract/index.js";
import { JOURNAL_RECORD_MAX_BYTES } from "../contract/index.js";
import type { Logger } from "../diagnostics/index.js";
import { archiveSegment, type JournalRetention } from "./_archive.js";
import { FinalReserve, isOutOfSpace } from "./_final-reserve.js";
import { type JournalFinalRecord, type JournalRecord, journalPaths } from "./_journal.js";
import { JournalWriter, journalTuning } from "./_journal-writer.js";

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

/** Spare reserve slots for the finals of refusals, which have no start to set room aside. */
const SPARE_FINALS = 4;
/** Slots the reserve grows by past what it needs, so a host at steady concurrency writes nothing per call. */
const RESERVE_HEADROOM = 4;
/** How often a host that owes finals tries to write them, so they land as soon as space returns. */
export const OWED_RETRY_MS = 200;

/**
 * The journal of one host. Appends are written at once and whole (or
 * nothing), and resolve once a flush shared with concurrent calls has put
 * them on disk.
 * Before a start is journaled, room for its final is set aside on disk
 * ({@link FinalReserve}), so a final is on disk before its outcome is
 * delivered even when the disk fills while the call runs. A final that
 * still cannot be written (the reserve spent, or the disk failing) is owed:
 * written, marked `deliveredUnjournaled`, before the next record and as
 * soon as space returns. Full segment parts are archived oldest first and
 * never out of order, so what stays in `live/` is always every part from
 * the oldest unarchived one on: recovery sees every final of a call it
 * could judge.
 *
 * @example
 * const journal = new HostJournal({ stateRoot, locks, host, logger, retention });
 * if (!(await journal.appendSoftly(start))) return journalFailed();
 * await journal.final(invocationId, identity, outcome);
 * await journal.close();
 */
export class HostJournal {
  readonly #o: HostJournalOptions;
  #writer: JournalWriter;
  #part = 0;
  readonly #reserve: FinalReserve;
  /** Finals the journal could not take yet, oldest first. */
  readonly #unwritten: JournalFinalRecord[] = [];
  #retry: ReturnType<typeof setInterval> | undefined;
  /** Full parts not yet archived, oldest first. */
  readonly #full: string[] = [];
  /** The archiving of full segment parts, in order. */
  #archiving: Promise<unknown> = Promise.resolve();
  /** Start and process records of calls still running: what a new part must carry. */
  readonly #inFlight = new Map<string, JournalRecord[]>();
  /** The records of calls whose final is written but not yet flushed. */
  readonly #finishing = new Map<string, JournalRecord[]>();

  constructor(options: HostJournalOptions) {
    this.#o = options;
    this.#writer = JournalWriter.create(options.stateRoot, options.host);
    this.#reserve = FinalReserve.create(journalPaths(options.stateRoot).live, options.host);
    try {
      this.#reserve.ensure(SPARE_FINALS, RESERVE_HEADROOM);
    } catch (e) {
      // A host starts on a full disk; its starts are refused until there is room.
      options.logger.error({ err: e }, "the journal's reserve could not be set aside yet");
    }
  }

  /**
   * Appends what is still owed, then `record` (for a start, after setting
   * aside room for its final), and resolves once it is on disk: its flush is
   * shared with the records of the calls in flight with it. Rejects
   * `journal_failed` and keeps nothing half-written.
   */
  async append(record: JournalRecord): Promise<void> {
    const onDisk = this.#place(record);
    try {
      await onDisk;
    } catch (e) {
      this.#unplace(record);
      throw e;
    }
    if (record.type === "final") this.#finishing.delete(record.invocationId);
  }

  /** {@link append}, logging instead of throwing; says whether the record is on disk. */
  async appendSoftly(record: JournalRecord): Promise<boolean> {
    try {
      await this.append(record);
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
   * Records the final of a call before its outcome is delivered: on a full
   * disk, by giving back reserve slots until it fits. The outcome happened
   * whether or not it is on disk: when it still is not, its record is owed.
   */
  async final(
    invocationId: string,
    command: string | undefined,
    outcome: InvocationOutcome,
    by?: HostBinding,
  ): Promise<void> {
    const record = finalRecord(this.#o.host, { invocationId, command, outcome, by });
    // A refusal (no start) may spend only the slots no running call has set aside.
    const keep = this.#inFlight.size - (this.#inFlight.has(invocationId) ? 1 : 0);
    for (;;) {
      try {
        await this.append(record);
        return;
      } catch (e) {
        if (isOutOfSpace(e) && this.#reserve.slots > keep && this.#reserve.release()) continue;
        this.#o.logger.error({ err: e, record: "final" }, "a final record is owed");
        break;
      }
    }
    this.#unwritten.push({ ...record, deliveredUnjournaled: true });
    this.#retry ??= setInterval(() => this.#retryOwed(), OWED_RETRY_MS);
    this.#retry.unref?.();
  }

  /** Writes `record` now (after what is owed); the promise says when it is on disk. */
  #place(record: JournalRecord): Promise<void> {
    // Only a part whose every record is on disk is closed: nothing waiting in it can be refused
    // after the next part carried it, and no second flush races its last.
    if (this.#writer.size > journalTuning.liveSegmentBytes && this.#writer.idle) this.#rollOver();
    this.#payDebts();
    if (record.type === "start")
      this.#reserve.ensure(this.#inFlight.size + 1 + SPARE_FINALS, RESERVE_HEADROOM);
    const onDisk = this.#writer.appendGrouped(record);
    if (record.type === "final") {
      // Until its final is on disk the call still counts as running (its reserve slot is its own).
      this.#finishing.set(record.invocationId, this.#inFlight.get(record.invocationId) ?? []);
      this.#inFlight.delete(record.invocationId);
    } else
      this.#inFlight.set(record.invocationId, [
        ...(this.#inFlight.get(record.invocationId) ?? []),
        record,
      ]);
    return onDisk;
  }

  /** A record whose flush failed is not on disk: a new part must not carry it, and a call whose final failed runs on. */
  #unplace(record: JournalRecord): void {
    if (record.type === "final") {
      const records = this.#finishing.get(record.invocationId);
      this.#finishing.delete(record.invocationId);
      if (records !== undefined && records.length > 0)
        this.#inFlight.set(record.invocationId, records);
      return;
    }
    const left = (this.#inFlight.get(record.invocationId) ?? []).filter((r) => r !== record);
    if (left.length === 0) this.#inFlight.delete(record.invocationId);
    else this.#inFlight.set(record.invocationId, left);
  }

  /** Finals owed and not yet on disk. */
  get owed(): number {
    return this.#unwritten.length;
  }

  /**
   * Writes what is owed (giving the whole reserve back if it must), archives
   * the full parts in order, then the last one when nothing is owed; a part
   * still owing finals stays live, and the next start finishes it.
   */
  async close(): Promise<void> {
    this.#stopRetry();
    // A record still being flushed (a process record no call waits for) is flushed first, alone.
    await this.#writer.drained();
    try {
      this.#payDebts();
    } catch {
      this.#reserve.remove();
      try {
        this.#payDebts();
      } catch {}
    }
    this.#reserve.remove();
    this.#writer.close();
    await this.#archiving;
    await this.#archiveFull();
    if (this.#unwritten.length === 0 && this.#full.length === 0)
      await archiveSegment(this.#writer.file, this.#o).catch((e) =>
        this.#o.logger.error({ err: e }, "the journal segment could not be archived yet"),
      );
  }

  #payDebts(): void {
    while (this.#unwritten.length > 0) {
      const owed = this.#unwritten[0]!;
      this.#writer.append(owed);
      this.#unwritten.shift();
      this.#inFlight.delete(owed.invocationId);
    }
  }

  #retryOwed(): void {
    try {
      this.#payDebts();
      this.#o.logger.warn({}, "the journal took the finals it owed");
      this.#stopRetry();
    } catch {}
  }

  #stopRetry(): void {
    if (this.#retry !== undefined) clearInterval(this.#retry);
    this.#retry = undefined;
  }

  /** Archives the full parts oldest first, stopping at the first that cannot be: never out of order. */
  async #archiveFull(): Promise<void> {
    while (this.#full.length > 0) {
      const ok = await archiveSegment(this.#full[0]!, this.#o).catch((e) => {
        this.#o.logger.error({ err: e }, "a full journal segment could not be archived yet");
        return false;
      });
      if (!ok) return;
      this.#full.shift();
    }
  }

  /**
   * Starts the next segment part, carrying the records of the calls still
   * running (so each part is whole for recovery), and archives the full one:
   * a host that runs for months keeps a bounded live segment. A next part
   * that cannot be made whole is removed, and the host keeps its part.
   */
  #rollOver(): void {
    let next: JournalWriter;
    try {
      next = JournalWriter.create(this.#o.stateRoot, this.#o.host, undefined, this.#part + 1);
    } catch (e) {
      this.#o.logger.error({ err: e }, "the journal could not roll over yet");
      return;
    }
    try {
      for (const records of this.#inFlight.values()) for (const r of records) next.append(r);
    } catch (e) {
      next.close();
      rmSync(next.file, { force: true });
      this.#o.logger.error({ err: e }, "the journal could not roll over yet");
      return;
    }
    const full = this.#writer;
    this.#writer = next;
    this.#part++;
    full.close();
    this.#full.push(full.file);
    this.#archiving = this.#archiving.then(() => this.#archiveFull());
  }
}

/** What a final record is made of. */
interface FinalOf {
  readonly invocationId: string;
  readonly command: string | undefined;
  readonly outcome: InvocationOutcome;
  readonly by: HostBinding | undefined;
}

/** A call's final record; it always fits a record: the problems' pointers go first if it would not. */
function finalRecord(host: string, { invocationId, command, outcome, by }: FinalOf) {
  const record: JournalFinalRecord = {
    type: "final",
    invocationId,
    at: new Date().toISOString(),
    host,
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
    ...(outcome.published !== undefined && { published: outcome.published }),
  };
  if (
    record.resultIssues !== undefined &&
    Buffer.byteLength(JSON.stringify(record)) > JOURNAL_RECORD_MAX_BYTES / 2
  ) {
    const { resultIssues: _, ...rest } = record;
    return rest;
  }
  return record;
}
