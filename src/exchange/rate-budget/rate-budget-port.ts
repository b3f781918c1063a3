/** One budget a request spends from: at most `limit` requests in any `windowMs`. */
export interface RateRule {
  /** Names the budget, e.g. `historyPosition:uid:1001`. */
  key: string;
  limit: number;
  windowMs: number;
}

/** A taken slot: pass it to complete() once the answer is back (or the attempt failed). */
export interface Slot {
  /** Names this slot in each log it holds a place in. */
  readonly member: string;
  /** The logs the slot holds a place in (the implementation's names for its rules). */
  readonly logKeys: readonly string[];
  /** Time spent waiting for it. */
  readonly waitedMs: number;
}

/** One attempt's answer: a slot, or how long to wait before the next attempt. */
export type AttemptResult = { slot: Slot } | { waitMs: number };

/**
 * What the exchange client needs from the request budget: a slot in every rule before a request
 * goes out, its completion once the answer is back, a pause of a rule after a 429. In production
 * the Redis sliding log (RateBudget), shared by every process; in unit tests the in-memory one
 * (MemoryRateBudget), with the same semantics inside one process.
 *
 * acquire() waits until every rule has room, then takes one slot in each, atomically. Inside
 * withoutBudgetWaits, a wait longer than it allows throws BudgetWaitError instead, with the wait
 * until the caller's turn (first come, first served per rule).
 */
export interface RateBudgetPort {
  acquire(rules: readonly RateRule[], signal?: AbortSignal): Promise<Slot>;
  complete(slot: Slot): Promise<void>;
  pause(key: string, ms: number): Promise<void>;
}
