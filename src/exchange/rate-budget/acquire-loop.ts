import { setTimeout as sleep } from 'node:timers/promises';

import { rateBudgetWait } from '../../metrics/instruments.ts';
import { BudgetWaitError, budgetWaitPolicy } from './budget-wait.ts';
import type { AttemptResult, RateRule, Slot } from './rate-budget-port.ts';

/**
 * The waiting shared by every budget: attempt, and on a refusal either sleep the wait and attempt
 * again or, for a caller that leaves (withoutBudgetWaits) and a wait longer than it waits in
 * place, throw BudgetWaitError with the wait until its turn.
 */
export async function acquireWithWaits(
  rules: readonly RateRule[],
  signal: AbortSignal | undefined,
  attempt: (waiter: { waiter: string; waitInPlaceMs: number } | undefined) => Promise<AttemptResult>,
): Promise<Slot> {
  const started = Date.now();
  const leaving = budgetWaitPolicy();
  for (;;) {
    signal?.throwIfAborted();
    const result = await attempt(leaving);
    if ('slot' in result) {
      const waitedMs = Date.now() - started;
      rateBudgetWait.observe(waitedMs / 1000);
      return { ...result.slot, waitedMs };
    }
    if (leaving && result.waitMs > leaving.waitInPlaceMs) {
      throw new BudgetWaitError(
        result.waitMs,
        rules.map((rule) => rule.key),
      );
    }
    await sleep(result.waitMs, undefined, signal ? { signal } : undefined);
  }
}
