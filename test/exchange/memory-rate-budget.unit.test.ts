import { describe, expect, it } from 'vitest';

import { BudgetWaitError, withoutBudgetWaits } from '../../src/exchange/rate-budget/budget-wait.ts';
import { MemoryRateBudget } from '../../src/exchange/rate-budget/memory-rate-budget.ts';
import type { RateRule } from '../../src/exchange/rate-budget/rate-budget-port.ts';

/** A budget on a clock the test moves by hand, without margin, so every wait is exact. */
function budgetAt(start = 1_000_000) {
  const time = { now: start };
  const budget = new MemoryRateBudget({ clock: () => time.now, marginMs: 0, inFlightMs: 60_000, pollMs: 7 });
  return { budget, time };
}

const spot = (uid: string): RateRule => ({ key: `spotRecord:uid:${uid}`, limit: 2, windowMs: 1_000 });

describe('MemoryRateBudget (the sliding log in memory)', () => {
  it('grants `limit` slots per window and refuses the next until the oldest completed one leaves the window', async () => {
    const { budget, time } = budgetAt();
    const first = budget.tryAcquire([spot('1001')]);
    const second = budget.tryAcquire([spot('1001')]);
    expect('slot' in first && 'slot' in second).toBe(true);
    if (!('slot' in first) || !('slot' in second)) return;
    time.now += 100;
    await budget.complete(first.slot);
    time.now += 50;
    await budget.complete(second.slot);
    // The window runs from each answer's arrival: the first frees 1000 ms after it completed.
    expect(budget.tryAcquire([spot('1001')])).toEqual({ waitMs: 950 });
    time.now += 950;
    expect('slot' in budget.tryAcquire([spot('1001')])).toBe(true);
  });

  it('keeps each UID and endpoint its own window', () => {
    const { budget } = budgetAt();
    budget.tryAcquire([spot('1001')]);
    budget.tryAcquire([spot('1001')]);
    expect('waitMs' in budget.tryAcquire([spot('1001')])).toBe(true);
    expect('slot' in budget.tryAcquire([spot('2002')])).toBe(true);
    expect('slot' in budget.tryAcquire([{ key: 'historyPosition:uid:1001', limit: 2, windowMs: 1_000 }])).toBe(true);
  });

  it('takes a slot in every rule or in none', () => {
    const { budget } = budgetAt();
    const ip: RateRule = { key: 'all:ip:host', limit: 1, windowMs: 60_000 };
    expect('slot' in budget.tryAcquire([spot('1001'), ip])).toBe(true);
    // The IP minute is spent: the spot rule must not lose a slot to the refused attempt.
    expect('waitMs' in budget.tryAcquire([spot('1001'), ip])).toBe(true);
    expect('slot' in budget.tryAcquire([spot('1001')])).toBe(true);
  });

  it('polls while only in-flight requests block, since their end is unknown', () => {
    const { budget } = budgetAt();
    budget.tryAcquire([spot('1001')]);
    budget.tryAcquire([spot('1001')]);
    expect(budget.tryAcquire([spot('1001')])).toEqual({ waitMs: 7 });
  });

  it('refuses a paused rule for the pause, and a shorter pause does not shorten it', async () => {
    const { budget, time } = budgetAt();
    await budget.pause(spot('1001').key, 1_000);
    await budget.pause(spot('1001').key, 10);
    expect(budget.tryAcquire([spot('1001')])).toEqual({ waitMs: 1_000 });
    time.now += 1_000;
    expect('slot' in budget.tryAcquire([spot('1001')])).toBe(true);
  });

  it('queues callers that leave first come, first served: each waits one interval more than the one ahead', async () => {
    const { budget, time } = budgetAt();
    for (const _ of [1, 2]) {
      const taken = budget.tryAcquire([spot('1001')]);
      if ('slot' in taken) await budget.complete(taken.slot);
    }
    const a = budget.tryAcquire([spot('1001')], { waiter: 'job-a', waitInPlaceMs: 50 });
    const b = budget.tryAcquire([spot('1001')], { waiter: 'job-b', waitInPlaceMs: 50 });
    // 2 per 1000 ms: one interval is 500 ms.
    expect(a).toEqual({ waitMs: 1_000 });
    expect(b).toEqual({ waitMs: 1_500 });
    // Coming back early keeps the place in the queue.
    time.now += 400;
    expect(budget.tryAcquire([spot('1001')], { waiter: 'job-b', waitInPlaceMs: 50 })).toEqual({ waitMs: 1_100 });
    time.now += 600;
    expect('slot' in budget.tryAcquire([spot('1001')], { waiter: 'job-a', waitInPlaceMs: 50 })).toBe(true);
  });

  it('acquire() throws BudgetWaitError inside withoutBudgetWaits and waits in place outside it', async () => {
    const budget = new MemoryRateBudget({ marginMs: 0 });
    const rule: RateRule = { key: 'spotRecord:uid:1001', limit: 1, windowMs: 200 };
    await budget.complete(await budget.acquire([rule]));
    const leaving = withoutBudgetWaits('job-a', () => budget.acquire([rule]), 20);
    await expect(leaving).rejects.toBeInstanceOf(BudgetWaitError);
    const started = Date.now();
    await budget.acquire([rule]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });
});
