import type { Server } from "node:net";
import type pino from "pino";
import {
  type JournalProcessRecord,
  type JournalStartRecord,
  type JournalWriter,
  readJournal,
} from "./_journal.js";
import { claimName, hostLockName } from "./_slots.js";
import { killTree } from "./_tree.js";

/** What {@link recoverLostHosts} needs from the core starting up. */
export interface RecoveryContext {
  readonly stateRoot: string;
  /** The state directory's real path, which names the hosts' locks. */
  readonly canonicalRoot: string;
  readonly uid: number;
  /** This core's host id, written into the finals it adds. */
  readonly host: string;
  /** Hosts of this process: alive by definition. */
  readonly skip: ReadonlySet<string>;
  readonly journal: JournalWriter;
  readonly logger: pino.Logger;
}

function openStarts(records: Awaited<ReturnType<typeof readJournal>>["records"]) {
  const finals = new Set<string>();
  const processes = new Map<string, JournalProcessRecord>();
  const starts: JournalStartRecord[] = [];
  for (const r of records) {
    if (r.type === "final") finals.add(r.invocationId);
    else if (r.type === "process") processes.set(r.invocationId, r);
    else starts.push(r);
  }
  return { open: starts.filter((s) => !finals.has(s.invocationId)), processes };
}

/**
 * Finalizes, as `execution_failed`/`host_lost`, every started call whose host
 * is gone, after killing what it left running. A host is gone when its
 * liveness lock can be taken — the kernel frees it when the host dies, and no
 * pid is consulted, so a reused pid misleads nothing. With the locks held the
 * journal is read again, so a call that ended (and whose host then exited)
 * since the first read is never given a second final. Returns the ids.
 */
export async function recoverLostHosts(ctx: RecoveryContext): Promise<string[]> {
  const first = openStarts((await readJournal(ctx.stateRoot)).records);
  const hosts = new Set(first.open.map((s) => s.host).filter((h) => !ctx.skip.has(h)));
  const held = new Map<string, Server>();
  try {
    for (const h of hosts) {
      const lock = await claimName(hostLockName(ctx.canonicalRoot, ctx.uid, h));
      if (lock !== null) held.set(h, lock);
    }
    if (held.size === 0) return [];
    const { open, processes } = openStarts((await readJournal(ctx.stateRoot)).records);
    const recovered: string[] = [];
    for (const s of open) {
      if (!held.has(s.host)) continue;
      const proc = processes.get(s.invocationId);
      // A reused pid has another start time and is left alone.
      const killed = proc !== undefined && killTree(proc.pid, proc.startTime, proc.pgid);
      try {
        ctx.journal.append({
          type: "final",
          invocationId: s.invocationId,
          at: new Date().toISOString(),
          host: ctx.host,
          outcome: "execution_failed",
          reason: "host_lost",
          command: s.command,
        });
      } catch (e) {
        // The next start tries again.
        ctx.logger.error({ err: e }, "a lost invocation could not be finalized yet");
        break;
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
    return recovered;
  } finally {
    for (const lock of held.values()) lock.close();
  }
}
