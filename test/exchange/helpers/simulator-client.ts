import type { Redis } from 'ioredis';

import type { ExchangeClientOptions } from '../../../src/exchange/client-options.ts';
import { ExchangeClient } from '../../../src/exchange/exchange-client.ts';
import type { RateBudgetPort } from '../../../src/exchange/rate-budget/rate-budget-port.ts';
import type { RunningSimulator } from '../../../src/simulator/index.ts';
import { scaledRates } from '../../../src/streams/endpoints.ts';

/** The client's budgets scaled like a simulator started with rateLimits.factor (its rounding). */
export function scaledLimits(factor: number): Record<string, number> {
  return scaledRates(factor, (value) => Math.max(1, Math.round(value)));
}

/** A client of the simulator's demo account, on the simulator's clock. */
export function simulatorClient(
  sim: RunningSimulator,
  /** Redis (the shared sliding log) or a budget of the test's own (MemoryRateBudget: no Redis needed). */
  budget: Redis | RateBudgetPort,
  prefix: string,
  overrides: Partial<ExchangeClientOptions> & { factor?: number } = {},
): ExchangeClient {
  const { factor = 1, ...rest } = overrides;
  return new ExchangeClient({
    baseUrl: sim.url,
    ...sim.demo,
    ...budgetOption(budget),
    clock: () => sim.clock.now(),
    retry: { maxAttempts: 8, baseDelayMs: 5, maxDelayMs: 50 },
    ...rest,
    rateBudget: { prefix, ipKey: 'test-host', perSecond: scaledLimits(factor), ...rest.rateBudget },
  });
}

function budgetOption(budget: Redis | RateBudgetPort): Pick<ExchangeClientOptions, 'redis' | 'budget'> {
  return 'acquire' in budget ? { budget } : { redis: budget };
}
