// How long a registry request may take: a total deadline and an idle
// timeout, both from npm's `fetch-timeout` and each with a ceiling, running
// as one abort signal that fires at whichever comes first.
import { FETCH_IDLE_MAX_MS, FETCH_TOTAL_MAX_MS } from "./_limits.js";
import type { NpmOptions } from "./_npm-config.js";

/** The two limits of one registry request, in milliseconds. */
export interface FetchDeadlines {
  /** Headers and body, redirects and retries, from start to end. */
  readonly totalMs: number;
  /** Without a byte received, before the headers or within the body. */
  readonly idleMs: number;
}

/**
 * The limits npm's configuration sets: `fetch-timeout` (npm's `timeout`;
 * 0 or none means the ceilings) capped by {@link FETCH_TOTAL_MAX_MS} and
 * {@link FETCH_IDLE_MAX_MS}.
 *
 * @example
 * fetchDeadlines(await npmConfig({ cwd, env: { npm_config_fetch_timeout: "5000" } })); // { totalMs: 5000, idleMs: 5000 }
 */
export function fetchDeadlines(npm: NpmOptions): FetchDeadlines {
  const t = npm.flat.timeout;
  const given = typeof t === "number" && Number.isFinite(t) && t > 0 ? t : FETCH_TOTAL_MAX_MS;
  return {
    totalMs: Math.min(given, FETCH_TOTAL_MAX_MS),
    idleMs: Math.min(given, FETCH_IDLE_MAX_MS),
  };
}

/** Which limit ended a request. */
export type Expiry = "total" | "idle";

/** `5 s`, `1.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/**
 * The running limits of one request: `signal` aborts when either expires,
 * `touch` restarts the idle timer as bytes arrive, `race` rejects a pending
 * promise at once when the signal fires (npm's retries would otherwise wait
 * out their back-off first), and `end` stops both timers.
 */
export class Deadline {
  readonly limits: FetchDeadlines;
  #expired: Expiry | undefined;
  readonly #abort = new AbortController();
  readonly #total: NodeJS.Timeout;
  #idle: NodeJS.Timeout;

  constructor(limits: FetchDeadlines) {
    this.limits = limits;
    this.#total = setTimeout(() => this.#expire("total"), limits.totalMs);
    this.#idle = setTimeout(() => this.#expire("idle"), limits.idleMs);
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The limit that expired, if one did. */
  get expired(): Expiry | undefined {
    return this.#expired;
  }

  #expire(why: Expiry): void {
    this.#expired ??= why;
    this.#abort.abort();
  }

  /** Bytes arrived: the idle timer starts again. */
  touch(): void {
    clearTimeout(this.#idle);
    if (this.#expired === undefined)
      this.#idle = setTimeout(() => this.#expire("idle"), this.limits.idleMs);
  }

  /** `pending`, or a rejection as soon as a limit expires. */
  race<T>(pending: Promise<T>): Promise<T> {
    const signal = this.#abort.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const stop = () => reject(signal.reason);
      signal.addEventListener("abort", stop, { once: true });
      pending.then(
        (v) => {
          signal.removeEventListener("abort", stop);
          resolve(v);
        },
        (e) => {
          signal.removeEventListener("abort", stop);
          reject(e);
        },
      );
    });
  }

  /** Stops both timers and whatever the request still holds open. */
  end(): void {
    clearTimeout(this.#total);
    clearTimeout(this.#idle);
    this.#abort.abort();
  }
}
