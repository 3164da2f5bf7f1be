// Progress reports as a person or a client can take them: at most one per
// interval, and the newest one when its turn comes (a report that came too
// soon is replaced by any later one, so the last word, often 100%, is not
// lost). Timers may fire a little early; a slot is never taken before its time.

import type { InvocationProgress } from "./_api.js";

/** A throttle of one call's progress (see {@link throttleProgress}). */
export interface ProgressThrottle {
  report(progress: InvocationProgress): void;
  /** Drops what is waiting and sends nothing more. */
  stop(): void;
}

/**
 * Passes reports to `send` at most once per `intervalMs`; one that comes
 * sooner waits for its slot unless a newer one replaces it.
 *
 * @example
 * const t = throttleProgress(100, (p) => draw(p));
 * ctxOptions.onProgress = t.report; // … and t.stop() before the outcome
 */
export function throttleProgress(
  intervalMs: number,
  send: (progress: InvocationProgress) => void,
): ProgressThrottle {
  let last = Number.NEGATIVE_INFINITY;
  let waiting: InvocationProgress | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const flush = () => {
    timer = undefined;
    if (stopped || waiting === undefined) return;
    const wait = last + intervalMs - Date.now();
    if (wait > 0) {
      timer = setTimeout(flush, wait);
      return;
    }
    const p = waiting;
    waiting = undefined;
    send(p);
    // Counted from when the send ended, so no two are seen closer than the interval.
    last = Date.now();
  };
  return {
    report(p) {
      if (stopped) return;
      waiting = p;
      if (timer === undefined) flush();
    },
    stop() {
      stopped = true;
      waiting = undefined;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
