import { createHash } from "node:crypto";
import { createServer, type Server } from "node:net";

/**
 * A held concurrency slot; {@link release} gives it back. The kernel gives it
 * back too when the holding process dies, however it dies.
 */
export interface ConcurrencySlot {
  release(): void;
}

/**
 * Binds an abstract Unix socket name: the bind is the lock (the name is
 * exclusive while bound, and freed by the kernel with its holder, however it
 * dies). Resolves `null` when another process holds it. Shared by the
 * concurrency slots and the hosts' liveness locks.
 */
export function claimName(name: string): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", () => resolve(null));
    server.listen({ path: `\0${name}`, exclusive: true }, () => {
      server.unref();
      resolve(server);
    });
  });
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
    const server = await claimName(`${prefix}.${i}`);
    if (server !== null) return { release: () => server.close() };
  }
  return null;
}
