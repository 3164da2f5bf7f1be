// A 2025-era client cancels a request with a second POST,
// `notifications/cancelled`, which a balancer may send to another replica
// than the one running the request. Each host keeps the 2025-era requests
// it has in hand by subject and id; a cancellation that names none of its
// own is left in the journal directory the replicas share, as an empty file
// named by a digest of subject and id, and the host holding that request
// finds it within a poll and cancels it. A mark counts only for a request
// that was in hand before it was left (a client reuses ids on its next
// connection) and is gone within {@link MARK_LIFE_MS} either way.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StateDirectory } from "@rukh/profile";
import { idKey, type RequestId } from "../protocol/index.js";

/** How often a host with 2025-era requests in hand looks for marks left for them. */
export const MARK_POLL_MS = 200;
/** How long a mark is kept for a request that no host claims (it had ended). */
export const MARK_LIFE_MS = 10_000;
/**
 * Most marks left at once: a client that sends cancellations for requests
 * nobody holds cannot fill the journal directory; past this, one is dropped
 * (the call it names still ends at its deadline, or when its client closes it).
 */
export const MARKS_MAX = 256;

interface Held {
  readonly key: string;
  readonly since: number;
}

/** The 2025-era requests one host has in hand, and the cancellations left for them. */
export class LegacyCancels {
  readonly #held = new Map<string, Held>();
  readonly #cancel: (key: string) => void;
  readonly #dir: Promise<string | undefined>;
  #timer: NodeJS.Timeout | undefined;

  /** `cancel`: cancels the request the protocol knows as `key`. */
  constructor(state: StateDirectory, cancel: (key: string) => void) {
    this.#cancel = cancel;
    // Where the replicas' journal is: the state directory's own, or the one a read-only copy writes in.
    this.#dir = state.places().then(
      (p) => (p.refusal === undefined ? join(p.journalRoot, "journal", "cancels") : undefined),
      () => undefined,
    );
  }

  /** Holds request `key` of `subject` under its client's `id`; the name to {@link release} it by. */
  hold(subject: string, id: RequestId, key: string): string {
    const name = markName(subject, id);
    // Two requests of one subject under one id: a cancellation names the first.
    if (!this.#held.has(name)) this.#held.set(name, { key, since: Date.now() });
    this.#timer ??= setInterval(() => void this.#poll(), MARK_POLL_MS);
    this.#timer.unref();
    return name;
  }

  release(name: string, key: string): void {
    if (this.#held.get(name)?.key === key) this.#held.delete(name);
    if (this.#held.size === 0) this.stop();
  }

  /** `notifications/cancelled` of `subject` for its request `id`: cancelled here, or marked for the replica that holds it. */
  async notified(subject: string, id: RequestId): Promise<void> {
    const name = markName(subject, id);
    const held = this.#held.get(name);
    if (held !== undefined) {
      this.#cancel(held.key);
      return;
    }
    const dir = await this.#dir;
    if (dir === undefined) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (this.#sweep(dir) >= MARKS_MAX)
      throw new Error(`${MARKS_MAX} cancellations are already waiting`);
    writeFileSync(join(dir, name), "", { mode: 0o600 });
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #poll(): Promise<void> {
    const dir = await this.#dir;
    if (dir !== undefined) this.#sweep(dir);
  }

  /**
   * Claims the marks left for requests this host holds (cancelling them),
   * removes those past {@link MARK_LIFE_MS}; how many are left.
   */
  #sweep(dir: string): number {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return 0;
    }
    const now = Date.now();
    let left = 0;
    for (const name of names) {
      const path = join(dir, name);
      const at = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
      if (at === undefined) continue;
      const held = this.#held.get(name);
      if (held !== undefined && at >= held.since) {
        rmSync(path, { force: true });
        this.#cancel(held.key);
      } else if (now - at > MARK_LIFE_MS) rmSync(path, { force: true });
      else left++;
    }
    return left;
  }
}

/** A mark's file name: what it names, never who (a digest of subject and id). */
function markName(subject: string, id: RequestId): string {
  return createHash("sha256")
    .update(`${subject}\u0000${idKey(id)}`)
    .digest("hex");
}
