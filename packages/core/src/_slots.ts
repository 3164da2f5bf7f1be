import { createHash } from "node:crypto";
import { holdNamedLock } from "@rukh/profile";

/**
 * A held concurrency slot; {@link release} gives it back. The kernel gives it
 * back too when the holding process dies, however it dies.
 */
export interface ConcurrencySlot {
  release(): void;
}

/**
 * The slot names of one preset on one state directory, shared by every CLI
 * and MCP process of the same user on this machine (network namespace).
 */
export function slotPrefix(stateRoot: string, preset: string, uid: number): string {
  return `rukh-slot-${digest(`${uid}\0${stateRoot}\0${preset}`)}`;
}

/** The liveness lock of one host (core) on a state directory: held for the host's whole life. */
export function hostLockName(stateRoot: string, uid: number, host: string): string {
  return `rukh-host-${digest(`${uid}\0${stateRoot}`)}.${host}`;
}

const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 32);

/**
 * Takes one of `max` slots without waiting: tries each in turn and resolves
 * `null` when all are held (the caller rejects the call; there is no queue).
 */
export async function acquireSlot(prefix: string, max: number): Promise<ConcurrencySlot | null> {
  for (let i = 0; i < max; i++) {
    const lock = await holdNamedLock(`${prefix}.${i}`);
    if (lock !== null) return lock;
  }
  return null;
}
