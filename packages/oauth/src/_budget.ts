// How many questions a resource server may put to its issuer about tokens
// it has never seen let in. Anyone can send a token, and distinct garbage
// defeats any cache keyed by the token, so what protects the issuer is a
// bound on the questions themselves: so many at once, so many started per
// second, so many waiting their turn, each not for long. A question past
// the bound is not asked at all.
//
// The places are shared by peer (who sent the request, as the caller names
// it): when every place is taken, a peer holding fewer than another gets
// one of that peer's waiting places, and a freed slot goes to the waiting
// peer holding the fewest. One peer's flood then keeps out no one else;
// without peers named it is the first-come queue it always was.

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
  /** `ask()` run within the bound, or when to come back if the bound is spent; `peer` names who asks (default: one peer for all). */
  run<T>(ask: () => Promise<T>, peer?: string): Promise<T | OverBudget>;
}

/** A question waiting for a start: whose it is, and how it is started or sent back. */
interface Place {
  readonly peer: string;
  start(): void;
  refuse(): void;
}

/**
 * A budget of `limits`: a token bucket of `perSecond` (full at start)
 * beside a count of questions in flight, and a queue of `waiting` places
 * shared by peer.
 *
 * @example
 * const budget = createBudget(INTROSPECTION_BUDGET);
 * const answer = await budget.run(() => introspect(endpoint, options, token), "203.0.113.7");
 */
export function createBudget(limits: BudgetLimits, clock: () => number = Date.now): Budget {
  let tokens = limits.perSecond;
  let filledAt = clock();
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  const queue: Place[] = [];
  /** Places (questions running or waiting) each peer holds; a peer holding none is not here. */
  const held = new Map<string, number>();
  const holding = (peer: string) => held.get(peer) ?? 0;
  const hold = (peer: string, by: 1 | -1) => {
    const n = holding(peer) + by;
    if (n > 0) held.set(peer, n);
    else held.delete(peer);
  };

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
    while (queue.length > 0 && take()) queue.splice(nextToStart(), 1)[0]!.start();
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
  /** The oldest waiting place of the peer holding the fewest places. */
  const nextToStart = (): number => {
    let best = 0;
    for (let i = 1; i < queue.length; i++)
      if (holding(queue[i]!.peer) < holding(queue[best]!.peer)) best = i;
    return best;
  };
  /** The newest waiting place of a peer that, once `peer` holds one more, would still hold more. */
  const placeToYield = (peer: string): number | undefined => {
    const wanted = holding(peer) + 1;
    let found: number | undefined;
    for (let i = queue.length - 1; i >= 0; i--) {
      const n = holding(queue[i]!.peer);
      if (n > wanted && (found === undefined || n > holding(queue[found]!.peer))) found = i;
    }
    return found;
  };
  const over = (): OverBudget => ({
    retryAfterSeconds: Math.max(1, Math.ceil((queue.length + running) / limits.perSecond)),
  });

  return {
    async run<T>(ask: () => Promise<T>, peer = ""): Promise<T | OverBudget> {
      if (queue.length === 0 && take()) {
        hold(peer, 1);
        return finish(ask, peer);
      }
      if (queue.length >= limits.waiting) {
        const yielded = placeToYield(peer);
        if (yielded === undefined) return over();
        queue.splice(yielded, 1)[0]!.refuse();
      }
      hold(peer, 1);
      const started = await new Promise<boolean>((resolve) => {
        const leave = () => {
          clearTimeout(wait);
          hold(peer, -1);
          resolve(false);
        };
        const wait = setTimeout(() => {
          queue.splice(queue.indexOf(place), 1);
          leave();
        }, limits.waitMs);
        wait.unref();
        const place: Place = {
          peer,
          start: () => {
            clearTimeout(wait);
            resolve(true);
          },
          refuse: leave,
        };
        queue.push(place);
        // Nothing may be running to start it when it finishes: the bucket may be all it waits for.
        pump();
      });
      return started ? finish(ask, peer) : over();
    },
  };

  async function finish<T>(ask: () => Promise<T>, peer: string): Promise<T> {
    try {
      return await ask();
    } finally {
      running -= 1;
      hold(peer, -1);
      pump();
    }
  }
}
