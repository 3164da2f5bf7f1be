import { randomUUID } from "node:crypto";
import { lstatSync, realpathSync, rmSync, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { type LockMechanism, StateDirectory, type StateLocks, stateLocks } from "@rukh/profile";
import { CoreError } from "../contract/index.js";
import type { Logger } from "../diagnostics/index.js";
import { DiagnosticsSink } from "../diagnostics/index.js";
import { killTree } from "../process/index.js";
import {
  archiveSegment,
  describeJournal,
  type JournalRetention,
  ownerRetention,
  quarantineSegment,
} from "./_archive.js";
import { reserveFile } from "./_final-reserve.js";
import {
  type JournalProcessRecord,
  type JournalRecord,
  type JournalStartRecord,
  journalPaths,
  liveSegmentHost,
  type ParsedSegment,
  readSegmentLeniently,
  segmentNames,
} from "./_journal.js";
import { JournalWriter } from "./_journal-writer.js";
import { dropKeptResults } from "./_results.js";

/** What {@link recoverLostHosts} needs from the core starting up. */
export interface RecoveryContext {
  readonly stateRoot: string;
  /** The state directory's locks: each host's liveness, the archive's. */
  readonly locks: StateLocks;
  /** This core's host id, written into the finals it adds. */
  readonly host: string;
  /** Hosts of this process: alive by definition. */
  readonly skip: ReadonlySet<string>;
  readonly logger: Logger;
  /** Read only if archiving begins a new archive segment. */
  readonly retention: () => Promise<JournalRetention>;
  /** Whether to finish the single file of earlier versions too (default true: a start does). */
  readonly earlierVersions?: boolean;
}

function openStarts(records: readonly JournalRecord[]) {
  const finals = new Set<string>();
  const processes = new Map<string, JournalProcessRecord>();
  const starts = new Map<string, JournalStartRecord>();
  for (const r of records) {
    if (r.type === "final") finals.add(r.invocationId);
    else if (r.type === "process") processes.set(r.invocationId, r);
    else starts.set(r.invocationId, r);
  }
  return { open: [...starts.values()].filter((s) => !finals.has(s.invocationId)), processes };
}

/**
 * Finalizes the open starts of one lost segment as `execution_failed`/
 * `host_lost`, in that segment, after killing what its host left running.
 * Returns false when the journal cannot take the records yet (a full disk).
 */
function finishSegment(
  ctx: RecoveryContext,
  writer: JournalWriter,
  records: readonly JournalRecord[],
  recovered: string[],
): boolean {
  const { open, processes } = openStarts(records);
  for (const s of open) {
    const proc = processes.get(s.invocationId);
    // A reused pid has another start time and is left alone.
    const killed = proc !== undefined && killTree(proc.pid, proc.startTime, proc.pgid);
    try {
      writer.append({
        type: "final",
        invocationId: s.invocationId,
        at: new Date().toISOString(),
        host: ctx.host,
        outcome: "execution_failed",
        reason: "host_lost",
        command: s.command,
      });
    } catch (e) {
      ctx.logger.error({ err: e }, "a lost invocation could not be finalized yet");
      return false;
    }
    recovered.push(s.invocationId);
    ctx.logger.warn(
      {
        invocationId: s.invocationId,
        command: s.command,
        lostHost: s.host,
        lostPid: s.pid,
        killedLeftover: killed,
      },
      "invocation finalized as host_lost; its outcome is unknown and it is not run again",
    );
  }
  return true;
}

/**
 * Finishes the segment parts of one lost host (or the earlier versions'
 * single file), oldest first: open starts are those without a final in any
 * part (a part carries the calls still running when it began), finalized in
 * the newest part; then every part is archived, or set aside if damaged.
 */
async function recoverSegments(
  ctx: RecoveryContext,
  files: readonly string[],
  recovered: string[],
): Promise<void> {
  const parts: { file: string; seg: ParsedSegment }[] = [];
  for (const file of files) {
    const foreign = notOurs(file);
    if (foreign !== undefined) {
      // Acting on it (a kill, a final) would be acting on another user's word.
      const to = await quarantineSegment(ctx.stateRoot, file);
      ctx.logger.error(
        { file, movedTo: to, why: foreign },
        "a live journal segment this user's hosts did not write was moved aside; nothing in it was acted on",
      );
      continue;
    }
    try {
      const seg = await readSegmentLeniently(file, relative(ctx.stateRoot, file));
      if (seg !== undefined) parts.push({ file, seg });
    } catch (e) {
      // Too large to read (or unreadable): set aside whole, so that start-up goes on.
      const to = await quarantineSegment(ctx.stateRoot, file);
      ctx.logger.error({ err: e, movedTo: to }, "an unreadable journal segment was moved aside");
    }
  }
  const newest = parts.at(-1);
  if (newest === undefined) return;
  const writer = JournalWriter.attach(newest.file, newest.seg.tornTailBytes);
  let finished: boolean;
  try {
    finished = finishSegment(
      ctx,
      writer,
      parts.flatMap((p) => p.seg.records),
      recovered,
    );
  } finally {
    writer.close();
  }
  if (!finished) return;
  // A result kept just before its host was lost has no outcome the journal vouches for.
  dropKeptResults(ctx.stateRoot, recovered);
  for (const { file, seg } of parts) {
    if (seg.damaged.length > 0) {
      const to = await quarantineSegment(ctx.stateRoot, file);
      ctx.logger.error(
        { damaged: seg.damaged.slice(0, 20), movedTo: to },
        "a damaged journal segment was moved aside; its readable records were recovered",
      );
    } else await archiveSegment(file, ctx);
  }
}

/**
 * Finishes what lost hosts left. A host is lost when its liveness lock can be
 * taken — the kernel frees it when the host dies, however it dies, and no pid
 * is consulted. Holding that lock, the recovering core reads the host's live
 * segment parts (every final it wrote is there), kills what it left running,
 * finalizes its open starts as `execution_failed`/`host_lost` in its newest
 * part, and archives the parts; a damaged part is moved to `quarantine/`
 * instead, its readable records recovered first. Only `live/` is read: the
 * cost is what is running or lost, never the history. Returns the ids.
 */
export async function recoverLostHosts(ctx: RecoveryContext): Promise<string[]> {
  const p = journalPaths(ctx.stateRoot);
  const recovered: string[] = [];
  const byHost = new Map<string, string[]>();
  for (const name of await segmentNames(p.live)) {
    const host = liveSegmentHost(name);
    if (host === ctx.host || ctx.skip.has(host)) continue;
    byHost.set(host, [...(byHost.get(host) ?? []), join(p.live, name)]);
  }
  for (const host of await reserveHosts(p.live))
    if (host !== ctx.host && !ctx.skip.has(host) && !byHost.has(host)) byHost.set(host, []);
  for (const [host, files] of byHost) {
    const lock = await ctx.locks.hold("host", host);
    if (lock === null) continue;
    try {
      // Its room for finals goes back first: the finals written for it may need that room.
      rmSync(reserveFile(p.live, host), { force: true });
      if (files.length > 0) await recoverSegments(ctx, files, recovered);
    } finally {
      lock.release();
    }
  }
  if (ctx.earlierVersions === false) return recovered;
  // The single file of earlier versions: its hosts held no lock, so what it left open is lost.
  const legacy = await ctx.locks.hold("host", "legacy");
  if (legacy !== null)
    try {
      await recoverSegments(ctx, [p.legacy], recovered);
    } finally {
      legacy.release();
    }
  return recovered;
}

/**
 * Why a live segment cannot be one of this user's hosts' (only they write
 * `live/`, with mode 0600): not a regular file, another owner, or writable
 * by others. Undefined when it can be.
 */
function notOurs(file: string): string | undefined {
  let s: Stats;
  try {
    s = lstatSync(file);
  } catch {
    return undefined;
  }
  const me = process.geteuid?.();
  if (!s.isFile()) return "not a regular file";
  if (me !== undefined && s.uid !== me) return `owned by user ${s.uid}`;
  if ((s.mode & 0o022) !== 0) return `writable by others (mode ${(s.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Hosts with a reserve file in `live/` (the room each host sets aside for its finals). */
async function reserveHosts(live: string): Promise<string[]> {
  try {
    return (await readdir(live))
      .filter((n) => n.endsWith(".reserve"))
      .map((n) => n.slice(0, -".reserve".length));
  } catch {
    return [];
  }
}

/**
 * What {@link repairJournal} did.
 *
 * @example
 * const r: JournalRepair = { finalized: ["…"], quarantined: [] };
 */
export interface JournalRepair {
  /** Invocations of lost hosts it finalized as `execution_failed`/`host_lost`. */
  readonly finalized: readonly string[];
  /** Damaged segments it set aside (names in the quarantine directory). */
  readonly quarantined: readonly string[];
}

/**
 * Does now what the next start-up would: finishes every lost host's live
 * segments (killing what they left running, finalizing their open calls,
 * archiving them, setting damaged ones aside). Running hosts are untouched:
 * their liveness locks are held. `stateRoot` is the directory holding
 * `journal/` (`StatePlaces.journalRoot`: the journal directory when one is
 * set); `mechanism` is how its locks are held (default: this system's);
 * `state`, whose owner configuration sets the retention, defaults to the
 * state directory at `stateRoot`.
 *
 * @example
 * const { finalized } = await repairJournal((await state.places()).journalRoot, state.locks, state);
 */
export async function repairJournal(
  stateRoot: string,
  mechanism?: LockMechanism,
  state?: StateDirectory,
): Promise<JournalRepair> {
  const locks = stateLocks(realpathSync(stateRoot), mechanism);
  const host = randomUUID();
  const liveness = await locks.hold("host", host);
  if (liveness === null)
    throw new CoreError("state_unavailable", "cannot hold a liveness lock for the repair");
  const sink = new DiagnosticsSink(stateRoot);
  const before = new Set((await describeJournal(stateRoot, mechanism)).quarantined);
  try {
    const finalized = await recoverLostHosts({
      stateRoot,
      locks,
      host,
      skip: new Set(),
      logger: sink.logger,
      retention: ownerRetention(state ?? new StateDirectory(stateRoot, { locks: locks.mechanism })),
    });
    const after = (await describeJournal(stateRoot, mechanism)).quarantined;
    return { finalized, quarantined: after.filter((n) => !before.has(n)) };
  } finally {
    sink.close();
    liveness.release();
  }
}
