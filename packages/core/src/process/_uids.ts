// The transient uid of one strict command of a root host: taken from the
// owner's range for as long as the command's process lives, never one another
// process of the machine has. Two hosts never take the same one (a
// machine-wide lock per uid), and a uid some other process runs as is passed
// over (its /proc entry is owned by it).

import { randomInt } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { holdAbstractLock, type StrictUids } from "@rukh/profile";

/** A uid held for one command process; `release` once the process is gone. */
export interface UidLease {
  readonly uid: number;
  release(): void;
}

/** How many uids of the range are tried before a call is refused. */
const TRIES = 64;

/** The uids any live process of this machine runs as (effective, as /proc shows them). */
function uidsInUse(): Set<number> {
  const used = new Set<number>();
  for (const name of readdirSync("/proc")) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    try {
      used.add(statSync(`/proc/${name}`).uid);
    } catch {}
  }
  return used;
}

/**
 * Takes a uid of `range` that no other lease holds and no process runs as,
 * or `null` when none was found in {@link TRIES} tries (the range is busy).
 *
 * @example
 * const lease = await leaseUid(STRICT_UIDS_DEFAULT);
 * if (lease !== null) child.once("exit", () => lease.release());
 */
export async function leaseUid(range: StrictUids): Promise<UidLease | null> {
  let used: Set<number> | undefined;
  for (let i = 0; i < TRIES; i++) {
    const uid = range.first + randomInt(range.count);
    const lock = await holdAbstractLock(`rukh-strict-uid-${uid}`);
    if (lock === null) continue;
    used ??= uidsInUse();
    if (used.has(uid)) {
      lock.release();
      continue;
    }
    return { uid, release: () => lock.release() };
  }
  return null;
}
