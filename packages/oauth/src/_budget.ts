// How many questions a resource server may put to its issuer about tokens
// it has never seen let in. Anyone can send a token, and distinct garbage
// defeats any cache keyed by the token, so what protects the issuer is a
// bound on the questions themselves: so many at once, so many started per
// second, so many waiting their turn, each not for long. A question past
// the bound is not asked at all.

/** The bound on questions to the issuer. */
export interface BudgetLimits {
  /** Questions under way at once. */
  readonly inFlight: number;
  /** Questions started per second, on average (and at most this many in one burst). */
  readonly perSecond: number;
  /** Questions waiting for a start; one more is refused. */
  readonly waiting: number;
  /** Longest a question waits before it is refused, in ms. */
  readonly waitMs: number;
}

/** The bound an introspecting resource server keeps to. */
export const INTROSPECTION_BUDGET: BudgetLimits = {
  inFlight: 4,
  perSecond: 10,
  waiting: 16,
  waitMs: 5_000,
};

/** What a budget says to a question past its bound: when to ask again, in whole seconds. */
export interface OverBudget {
  readonly retryAfterSeconds: number;
}

/** A gate that runs a question now, later, or not at all. */
export interface Budget {
  /** `ask()` run within the bound, or when to come back if the bound is spent. */
  run<T>(ask: () => Promise<T>): Promise<T | OverBudget>;
}

/**
 * A budget of `limits`: a token bucket of `perSecond` (full at start)
 * beside a count of questions in flight, and a first-come queue of
 * `waiting` places.
 *
 * @example
 * const budget = createBudget(INTROSPECTION_BUDGET);
 * const answer = await budget.run(() => introspect(endpoint, options, token));
 */
export function createBudget(limits: BudgetLimits, clock: () => number = Date.now): Budget {
  let tokens = limits.perSecond;
  let filledAt = clock();
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  const queue: { start(): void }[] = [];

  const refill = () => {
    const now = clock();
    tokens = Math.min(limits.perSecond, tokens + ((now - filledAt) / 1_000) * limits.perSecond);
    filledAt = now;
  };
  const take = (): boolean => {
    refill();
    if (running >= limits.inFlight || tokens < 1) return false;
    tokens -= 1;
    running += 1;
    return true;
  };
  const pump = () => {
    while (queue.length > 0 && take()) queue.shift()!.start();
    // Slots are free but the bucket is empty: come back when it holds a token.
    if (queue.length > 0 && running < limits.inFlight && timer === undefined) {
      const ms = Math.ceil(((1 - tokens) / limits.perSecond) * 1_000);
      timer = setTimeout(() => {
        timer = undefined;
        pump();
      }, ms);
      timer.unref();
    }
  };
  const over = (): OverBudget => ({
    retryAfterSeconds: Math.max(1, Math.ceil((queue.length + running) / limits.perSecond)),
  });

  return {
    async run<T>(ask: () => Promise<T>): Promise<T | OverBudget> {
      if (queue.length === 0 && take()) return finish(ask);
      if (queue.length >= limits.waiting) return over();
      const started = await new Promise<boolean>((resolve) => {
        const wait = setTimeout(() => {
          queue.splice(queue.indexOf(place), 1);
          resolve(false);
        }, limits.waitMs);
        wait.unref();
        const place = {
          start: () => {
            clearTimeout(wait);
            resolve(true);
          },
        };
        queue.push(place);
        // Nothing may be running to start it when it finishes: the bucket may be all it waits for.
        pump();
      });
      return started ? finish(ask) : over();
    },
  };

  async function finish<T>(ask: () => Promise<T>): Promise<T> {
    try {
      return await ask();
    } finally {
      running -= 1;
      pump();
    }
  }
}
