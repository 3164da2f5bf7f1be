import type { NamedLock, StateLocks } from "@rukh/profile";

/**
 * Takes one of `max` concurrency slots of `preset` without waiting, shared by
 * every CLI and MCP process of the same user on the state directory: tries
 * each in turn and resolves `null` when all are held (the caller rejects the
 * call; there is no queue). The kernel gives a slot back when its holder
 * dies, however it dies.
 */
export async function acquireSlot(
  locks: StateLocks,
  preset: string,
  max: number,
): Promise<NamedLock | null> {
  for (let i = 0; i < max; i++) {
    const lock = await locks.hold("slot", `${preset}.${i}`);
    if (lock !== null) return lock;
  }
  return null;
}
