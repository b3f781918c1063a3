import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/config.ts';
import { DEFAULT_FAILURE_BUDGET_MS, failureBoundMs } from '../../src/exchange/failure-bound.ts';
import { DEFAULT_RETRY } from '../../src/exchange/retry-policy.ts';
import { RETRY_WAIT_IN_PLACE_MS } from '../../src/exchange/signed-caller.ts';

describe('the bound on a failing window (src/exchange/failure-bound.ts)', () => {
  it('is at most 5 minutes with the default settings', () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    expect(config.exchangeFailureBudgetMs).toBe(DEFAULT_FAILURE_BUDGET_MS);
    const bound = failureBoundMs({ deadlineMs: config.exchangeDeadlineMs, budgetMs: config.exchangeFailureBudgetMs });
    // docs/operations.md: 30 + 180 + 5 + 5 + 30 = 250 s.
    expect(bound).toBe(250_000);
    expect(bound).toBeLessThanOrEqual(5 * 60_000);
  });

  it('is the deadline twice, the budget, the client backoff and the rate-budget slot wait', () => {
    const retry = { ...DEFAULT_RETRY, maxDelayMs: 7_000 };
    expect(failureBoundMs({ deadlineMs: 60_000, budgetMs: 10_000, retry })).toBe(
      60_000 + 10_000 + 7_000 + RETRY_WAIT_IN_PLACE_MS + 60_000,
    );
  });

  it('refuses a budget that is not a whole number of milliseconds from 0 to a day', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', EXCHANGE_FAILURE_BUDGET_MS: '-1' })).toThrow(
      /EXCHANGE_FAILURE_BUDGET_MS/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', EXCHANGE_FAILURE_BUDGET_MS: '1.5' })).toThrow(
      /EXCHANGE_FAILURE_BUDGET_MS/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', EXCHANGE_FAILURE_BUDGET_MS: '86400001' })).toThrow(
      /EXCHANGE_FAILURE_BUDGET_MS/,
    );
  });
});
