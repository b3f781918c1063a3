import type { Redis } from 'ioredis';

import type { ExchangeClientOptions } from '../../../src/exchange/client-options.ts';
import type { EndpointName } from '../../../src/exchange/endpoints.ts';
import { ExchangeClient } from '../../../src/exchange/exchange-client.ts';
import type { RateBudgetPort } from '../../../src/exchange/rate-budget/rate-budget-port.ts';
import { historyPosition } from '../../../src/streams/positions/pager.ts';
import { spotRecord } from '../../../src/streams/spot/pager.ts';
import { allSubDepositWithdrawal } from '../../../src/streams/transfers/pager.ts';

export function makeClient(
  baseUrl: string,
  /** Redis (the shared sliding log) or a budget of the test's own (MemoryRateBudget: no Redis needed). */
  budget: Redis | RateBudgetPort,
  prefix: string,
  overrides: Partial<ExchangeClientOptions> = {},
): ExchangeClient {
  return new ExchangeClient({
    baseUrl,
    apiKey: 'test-key',
    secretKey: 'test-secret',
    passphrase: 'test1234',
    uid: '1001',
    ...budgetOption(budget),
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...overrides,
    rateBudget: { prefix, ipKey: 'test-host', ...overrides.rateBudget },
  });
}

/** The history endpoints' requests, declared by their streams (src/streams), not by the client. */
const STREAM_REQUESTS = { historyPosition, spotRecord, allSubDepositWithdrawal } as const;

/** Calls an endpoint's typed method (or its stream's request) by name, for tables of cases. */
export function callEndpoint(client: ExchangeClient, endpoint: string, params: unknown): Promise<unknown> {
  if (Object.hasOwn(STREAM_REQUESTS, endpoint)) {
    const request = STREAM_REQUESTS[endpoint as keyof typeof STREAM_REQUESTS] as (
      client: ExchangeClient,
      params: unknown,
    ) => Promise<unknown>;
    return request(client, params);
  }
  const method = client[endpoint as EndpointName] as (this: ExchangeClient, params: unknown) => Promise<unknown>;
  return method.call(client, params);
}

function budgetOption(budget: Redis | RateBudgetPort): Pick<ExchangeClientOptions, 'redis' | 'budget'> {
  return 'acquire' in budget ? { budget } : { redis: budget };
}
