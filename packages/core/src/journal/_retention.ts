// Which archive segments the age retention may delete: a pure decision over
// the times the journal's own records carry, and this process's clock only as
// a witness that must agree with them.

/** How far this process's clock may run ahead of the journal's newest record (1 day) and still be trusted. */
export const CLOCK_AHEAD_MAX_MS = 86_400_000;
/** How far it may run behind that record (5 minutes: hosts' clocks differ a little). */
export const CLOCK_BEHIND_MAX_MS = 300_000;

/** How this process's clock stands against the journal's newest record time. */
export type ClockReading =
  | { readonly kind: "agrees"; readonly journalTime: number }
  /** No record to compare with: an empty journal, or only this host's own records. */
  | { readonly kind: "unknown" }
  | { readonly kind: "ahead" | "behind"; readonly journalTime: number; readonly byMs: number };

/**
 * Compares `now` with the journal's newest record time: a clock ahead by
 * more than {@link CLOCK_AHEAD_MAX_MS} or behind by more than
 * {@link CLOCK_BEHIND_MAX_MS} is skewed.
 */
export function readClock(now: number, journalTime: number | null): ClockReading {
  if (journalTime === null) return { kind: "unknown" };
  if (now - journalTime > CLOCK_AHEAD_MAX_MS)
    return { kind: "ahead", journalTime, byMs: now - journalTime };
  if (journalTime - now > CLOCK_BEHIND_MAX_MS)
    return { kind: "behind", journalTime, byMs: journalTime - now };
  return { kind: "agrees", journalTime };
}

/** One archive segment as retention sees it: its bytes and its newest record time (null: none readable). */
export interface SegmentAge {
  readonly size: number;
  readonly newestAt: number | null;
}

/** What retention weighs a segment against. */
export interface RetentionBudget {
  readonly maxAgeMs: number;
  readonly maxBytes: number;
  /** The archive's bytes before this segment's deletion. */
  readonly totalBytes: number;
  /** How this process's clock stands: age counts only when it agrees. */
  readonly clock: ClockReading;
  /** The newest record time of the segments before this one (a segment is never younger than them). */
  readonly before: number | null;
}

/**
 * Why an archive segment (oldest first, never the newest) goes, or `null`
 * when it stays and so do all after it. Size is measured in bytes only; age
 * is the journal's newest record time minus the segment's own, never this
 * process's clock, and is weighed only while that clock agrees with the journal.
 */
export function retentionVerdict(
  segment: SegmentAge,
  budget: RetentionBudget,
): "size" | "age" | null {
  if (budget.totalBytes > budget.maxBytes) return "size";
  if (budget.clock.kind !== "agrees" || segment.newestAt === null) return null;
  // A record dated behind an earlier segment's (a clock set back) does not make its segment older.
  const time = Math.max(segment.newestAt, budget.before ?? segment.newestAt);
  return budget.clock.journalTime - time > budget.maxAgeMs ? "age" : null;
}
