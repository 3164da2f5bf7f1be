// Temporary files a crashed writer left in the state directory's `tmp/`.
// Every writer names its temporary entries with its pid; an entry is debris
// once that process is gone and the entry has sat untouched for a while.

import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * One leftover entry of `tmp/`.
 *
 * @example
 * const d: TemporaryDebris = { path: "/home/you/.local/state/acme/tmp/active.4242.a1b2c3", bytes: 65, modifiedAt: "…", pid: 4242 };
 */
export interface TemporaryDebris {
  readonly path: string;
  /** Bytes of the entry (a staging directory counts its files). */
  readonly bytes: number;
  readonly modifiedAt: string;
  /** The writer named in the entry, or `null` for a name no version writes. */
  readonly pid: number | null;
}

/** An entry younger than this is left alone: its writer may have just created it. */
const SETTLE_MS = 60_000;
/** An entry whose name says no writer is debris only after this long. */
const UNNAMED_MS = 86_400_000;

/** The pid a writer put in an entry's name: `<what>.<pid>.<random hex>`. */
export function temporaryName(what: string, pid = process.pid): string {
  return `${what}.${pid}.`;
}

function writerOf(name: string): number | null {
  const m = /\.([1-9][0-9]{0,9})\.[0-9a-f]+$/.exec(name);
  return m === null ? null : Number(m[1]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function sizeOf(path: string): Promise<number> {
  const st = await lstat(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name)).catch(() => 0);
  return total;
}

/**
 * The entries of `tmp/` no running writer owns: their writer's pid is gone
 * (a live pid, even a reused one, keeps its entry) and they are older than a
 * minute, or they name no writer and are older than a day.
 *
 * @example
 * for (const d of await findTemporaryDebris(state.root)) console.log(d.path, d.bytes);
 */
export async function findTemporaryDebris(
  stateRoot: string,
  now = Date.now(),
): Promise<TemporaryDebris[]> {
  const dir = join(stateRoot, "tmp");
  let names: string[];
  try {
    // Never through a link: what another hand pointed `tmp` at is not ours to remove.
    if (!(await lstat(dir)).isDirectory()) return [];
    names = (await readdir(dir)).sort();
  } catch {
    return [];
  }
  const found: TemporaryDebris[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const st = await lstat(path).catch(() => undefined);
    if (st === undefined) continue;
    const pid = writerOf(name);
    const age = now - st.mtimeMs;
    const orphan = pid === null ? age > UNNAMED_MS : age > SETTLE_MS && !alive(pid);
    if (orphan)
      found.push({ path, bytes: await sizeOf(path), modifiedAt: st.mtime.toISOString(), pid });
  }
  return found;
}

/**
 * Removes what {@link findTemporaryDebris} finds; returns what it removed.
 *
 * @example
 * const removed = await removeTemporaryDebris(state.root);
 */
export async function removeTemporaryDebris(stateRoot: string): Promise<TemporaryDebris[]> {
  const removed: TemporaryDebris[] = [];
  for (const d of await findTemporaryDebris(stateRoot)) {
    await rm(d.path, { recursive: true, force: true });
    removed.push(d);
  }
  return removed;
}
