import { holdNamedLock, type NamedLock, stateLockName } from "@rukh/profile";

/**
 * The slot names of one preset on one state directory, shared by every CLI
 * and MCP process of the same user on this machine (network namespace).
 */
export function slotPrefix(canonicalRoot: string, preset: string): string {
  return stateLockName("slot", canonicalRoot, preset);
}

/**
 * Takes one of `max` slots without waiting: tries each in turn and resolves
 * `null` when all are held (the caller rejects the call; there is no queue).
 * The kernel gives a slot back when its holder dies, however it dies.
 */
export async function acquireSlot(prefix: string, max: number): Promise<NamedLock | null> {
  for (let i = 0; i < max; i++) {
    const lock = await holdNamedLock(`${prefix}.${i}`);
    if (lock !== null) return lock;
  }
  return null;
}
