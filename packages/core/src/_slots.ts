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
 * Binds the abstract Unix socket name of one slot: the bind is the lock (the
 * name is exclusive while bound, and freed by the kernel with its holder).
 * Resolves `null` when another process holds it.
 */
function bindSlot(name: string): Promise<Server | null> {
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
  const h = createHash("sha256").update(`${uid}\0${stateRoot}\0${preset}`).digest("hex");
  return `rukh-slot-${h.slice(0, 32)}`;
}

/**
 * Takes one of `max` slots without waiting: tries each in turn and resolves
 * `null` when all are held (the caller rejects the call; there is no queue).
 */
export async function acquireSlot(prefix: string, max: number): Promise<ConcurrencySlot | null> {
  for (let i = 0; i < max; i++) {
    const server = await bindSlot(`${prefix}.${i}`);
    if (server !== null) return { release: () => server.close() };
  }
  return null;
}
