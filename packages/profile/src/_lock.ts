import { createServer } from "node:net";

/**
 * A lock the kernel holds for its holder: an abstract Unix socket name,
 * exclusive while bound and freed the moment the holding process dies,
 * however it dies. Nothing is left on disk, so no lock is ever stale and no
 * pid is ever trusted. The names live in the machine's network namespace.
 *
 * @example
 * const lock = await holdNamedLock("acme-publication-3f2a…");
 * if (lock !== null) try { publish(); } finally { lock.release(); }
 */
export interface NamedLock {
  release(): void;
}

/**
 * Takes the lock `name` without waiting; `null` when another process (or
 * another holder in this one) has it.
 *
 * @example
 * const slot = await holdNamedLock(`rukh-slot-${hash}.0`);
 */
export function holdNamedLock(name: string): Promise<NamedLock | null> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", () => resolve(null));
    server.listen({ path: `\0${name}`, exclusive: true }, () => {
      server.unref();
      resolve({ release: () => server.close() });
    });
  });
}
