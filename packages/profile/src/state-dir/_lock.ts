import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { ProfileError } from "../model/index.js";

/**
 * A lock the kernel holds for its holder: freed the moment the holding
 * process dies, however it dies, so no lock is ever stale and no pid is ever
 * trusted.
 *
 * @example
 * const lock = await holdStateLock(realpathSync(root), "publication");
 * if (lock !== null) try { publish(); } finally { lock.release(); }
 */
export interface NamedLock {
  release(): void;
}

/**
 * How a state directory's locks are held:
 *
 * - `abstract-socket` (Linux): a listening Unix socket in the abstract
 *   namespace, named from the user and the directory's real path. Nothing
 *   is left on disk; the names live in the machine's network namespace.
 * - `socket-file` (any POSIX system): a listening Unix socket file in the
 *   state directory's `locks/`, one per taker, checked by connecting.
 *
 * @example
 * const mechanism: LockMechanism = "socket-file";
 */
export type LockMechanism = "abstract-socket" | "socket-file";

/** The mechanism of this system: abstract sockets where Linux has them, socket files elsewhere. */
export const SYSTEM_LOCKS: LockMechanism =
  process.platform === "linux" ? "abstract-socket" : "socket-file";

/**
 * The longest path of a Unix socket every POSIX system binds (macOS and the
 * BSDs keep 104 bytes with the terminating NUL; Linux 108).
 */
export const SOCKET_PATH_MAX_BYTES = 103;

/**
 * The locks of one state directory: publication, archive, each host's
 * liveness, each preset's concurrency slots.
 *
 * @example
 * const slot = await stateLocks(realpathSync(root)).hold("slot", "agent.0");
 */
export interface StateLocks {
  readonly canonicalRoot: string;
  readonly mechanism: LockMechanism;
  /**
   * Takes the lock `kind` (and `part`: a slot number, a host id) without
   * waiting: `null` when another process (or another holder in this one)
   * has it. Every process of the user that names the same directory names
   * the same lock.
   */
  hold(kind: string, part?: string): Promise<NamedLock | null>;
}

/**
 * The locks of the state directory whose real path is `canonicalRoot`, held
 * by `mechanism` (default {@link SYSTEM_LOCKS}; tests choose the other to
 * run the same tables on it).
 *
 * @example
 * const locks = stateLocks(realpathSync(root), "socket-file");
 */
export function stateLocks(
  canonicalRoot: string,
  mechanism: LockMechanism = SYSTEM_LOCKS,
): StateLocks {
  return {
    canonicalRoot,
    mechanism,
    hold: (kind, part) =>
      mechanism === "abstract-socket"
        ? holdAbstract(abstractName(canonicalRoot, kind, part))
        : holdSocketFile(canonicalRoot, kind, part),
  };
}

function abstractName(canonicalRoot: string, kind: string, part: string | undefined): string {
  const h = createHash("sha256")
    .update(`${process.getuid?.() ?? ""}\0${canonicalRoot}`)
    .digest("hex")
    .slice(0, 32);
  return `rukh-${kind}-${h}${part === undefined ? "" : `.${part}`}`;
}

function listen(path: string): Promise<Server | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error));
    server.listen({ path, exclusive: true }, () => {
      server.unref();
      resolve(server);
    });
  });
}

/**
 * Takes the machine-wide lock `name` (an abstract Unix socket: Linux only;
 * elsewhere every take fails) without waiting: `null` when any process of
 * the machine's network namespace holds it.
 *
 * @example
 * const uid = await holdAbstractLock("rukh-strict-uid-1879048193");
 */
export function holdAbstractLock(name: string): Promise<NamedLock | null> {
  return process.platform === "linux" ? holdAbstract(name) : Promise.resolve(null);
}

async function holdAbstract(name: string): Promise<NamedLock | null> {
  const server = await listen(`\0${name}`);
  if (server instanceof Error) return null;
  return { release: () => server.close() };
}

/** The folder of a state directory's socket-file locks. */
const LOCKS_DIR = "locks";
const NAME_HASH_CHARS = 12;

/**
 * A socket-file lock. Each taker binds a socket of its own, under a name no
 * one else ever uses (the lock's name, then random bytes), and then looks at
 * every other socket of the same lock: one that answers a connection is a
 * live holder, so the taker gives up; one that refuses is left by a holder
 * that died and is removed (its name is never bound again, so removing it
 * cannot remove a live one). Of two takers, the later to bind always sees
 * the earlier: at most one holds. Both may give up in a close race; neither
 * then holds.
 */
async function holdSocketFile(
  canonicalRoot: string,
  kind: string,
  part: string | undefined,
): Promise<NamedLock | null> {
  const dir = join(canonicalRoot, LOCKS_DIR);
  const prefix = `${createHash("sha256")
    .update(`${kind}\0${part ?? ""}`)
    .digest("hex")
    .slice(0, NAME_HASH_CHARS)}.`;
  const own = `${prefix}${randomBytes(6).toString("hex")}`;
  const path = join(dir, own);
  if (Buffer.byteLength(path) > SOCKET_PATH_MAX_BYTES)
    throw new ProfileError(
      "io_error",
      `the state directory's path ${canonicalRoot} is too long for its lock sockets (${path} is ${Buffer.byteLength(path)} bytes; a Unix socket path holds at most ${SOCKET_PATH_MAX_BYTES}): use a shorter state directory`,
    );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const server = await listen(path);
  // A name taken already (random bytes met) or a folder that cannot be written: not held.
  if (server instanceof Error) return null;
  const release = () => {
    server.close();
    try {
      unlinkSync(path);
    } catch {}
  };
  let others: string[];
  try {
    others = readdirSync(dir).filter((n) => n.startsWith(prefix) && n !== own);
  } catch {
    release();
    return null;
  }
  for (const name of others) {
    const state = await probeSocket(join(dir, name));
    if (state === "live") {
      release();
      return null;
    }
    if (state === "dead")
      try {
        unlinkSync(join(dir, name));
      } catch {}
  }
  return { release };
}

/**
 * Whether a lock's socket file has a live holder: `dead` only when the
 * connection is refused (nothing listens: its holder died), `gone` when it
 * was removed meanwhile; any other answer counts as live, never stolen.
 */
function probeSocket(path: string): Promise<"live" | "dead" | "gone"> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve("live");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      resolve(error.code === "ECONNREFUSED" ? "dead" : error.code === "ENOENT" ? "gone" : "live");
    });
  });
}
