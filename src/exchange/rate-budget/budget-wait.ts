import { AsyncLocalStorage } from 'node:async_hooks';

import { TransientError } from '../../errors/index.ts';

/**
 * How long a caller that may not wait in place still waits in place for a slot: about one page's
 * store, less than giving the worker slot back and taking the job again costs.
 */
export const WAIT_IN_PLACE_MS = 50;

/**
 * A caller that left comes back this much before its turn and waits the rest in place, so the
 * moment between a delayed job becoming due and a worker taking it is not lost from the budget.
 */
export const BACK_BEFORE_TURN_MS = 30;

/**
 * The budget refused for longer than the caller may wait in place: it should
 * go away (a job moves to delayed, freeing its worker slot) and come back in
 * `waitMs`, when its turn in the budget comes.
 */
export class BudgetWaitError extends TransientError {
  constructor(
    readonly waitMs: number,
    readonly budgetKeys: readonly string[],
  ) {
    super(`no slot in the rate budget for ${waitMs} ms (${budgetKeys.join(', ')})`, { code: 'BUDGET_WAIT' });
  }
}

const yielding = new AsyncLocalStorage<{ waiter: string; waitInPlaceMs: number }>();

/**
 * Runs `work` so that every rate-budget wait inside it longer than `waitInPlaceMs`
 * throws BudgetWaitError instead of sleeping, with the wait until the turn of
 * `waiter` (a name that stays the same each time the caller comes back: an
 * ingest job's id). The policy belongs to the caller (an ingest job holds a
 * worker slot; a management action or a reconciliation may wait in place), not
 * to the exchange client, which every caller shares; so it travels with the
 * async context through the client, its pager and its prefetch, without a
 * parameter threaded through each of them.
 */
export function withoutBudgetWaits<T>(
  waiter: string,
  work: () => Promise<T>,
  waitInPlaceMs = WAIT_IN_PLACE_MS,
): Promise<T> {
  return yielding.run({ waiter, waitInPlaceMs }, work);
}

/**
 * Runs `work` so that a caller that leaves on a budget wait (withoutBudgetWaits) waits in place
 * for up to `waitInPlaceMs` instead; longer waits still throw BudgetWaitError. A caller that
 * waits in place anyway is left as it is.
 */
export function waitingInPlaceUpTo<T>(waitInPlaceMs: number, work: () => Promise<T>): Promise<T> {
  const policy = yielding.getStore();
  if (!policy || policy.waitInPlaceMs >= waitInPlaceMs) return work();
  return yielding.run({ ...policy, waitInPlaceMs }, work);
}

/** The current context's waiter and how long it waits in place; undefined: wait as long as it takes. */
export function budgetWaitPolicy(): { waiter: string; waitInPlaceMs: number } | undefined {
  return yielding.getStore();
}
