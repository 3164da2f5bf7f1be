import { createHash } from "node:crypto";
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
 * The name of a lock of one kind on one state directory, for this user:
 * `rukh-<kind>-<hash of uid and the directory's real path>`, then `.<part>`
 * when given (a slot number, a host id). Every process of the user that
 * names the same directory names the same lock.
 *
 * @example
 * stateLockName("publication", realpathSync(root)); // "rukh-publication-3f2a…"
 */
export function stateLockName(kind: string, canonicalRoot: string, part?: string): string {
  const h = createHash("sha256")
    .update(`${process.getuid?.() ?? ""}\0${canonicalRoot}`)
    .digest("hex")
    .slice(0, 32);
  return `rukh-${kind}-${h}${part === undefined ? "" : `.${part}`}`;
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
