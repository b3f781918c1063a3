import type { Redis } from 'ioredis';

import type { ExchangeClientOptions } from '../../../src/exchange/client-options.ts';
import { ExchangeClient } from '../../../src/exchange/exchange-client.ts';
import type { RunningSimulator } from '../../../src/simulator/index.ts';
import { scaledRates } from '../../../src/streams/endpoints.ts';

/** The client's budgets scaled like a simulator started with rateLimits.factor (its rounding). */
export function scaledLimits(factor: number): Record<string, number> {
  return scaledRates(factor, (value) => Math.max(1, Math.round(value)));
}

/** A client of the simulator's demo account, on the simulator's clock. */
export function simulatorClient(
  sim: RunningSimulator,
  redis: Redis,
  prefix: string,
  overrides: Partial<ExchangeClientOptions> & { factor?: number } = {},
): ExchangeClient {
  const { factor = 1, ...rest } = overrides;
  return new ExchangeClient({
    baseUrl: sim.url,
    ...sim.demo,
    redis,
    clock: () => sim.clock.now(),
    retry: { maxAttempts: 8, baseDelayMs: 5, maxDelayMs: 50 },
    ...rest,
    rateBudget: { prefix, ipKey: 'test-host', perSecond: scaledLimits(factor), ...rest.rateBudget },
  });
}
