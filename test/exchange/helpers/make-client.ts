import type { Redis } from 'ioredis';

import type { ExchangeClientOptions } from '../../../src/exchange/client-options.ts';
import type { EndpointName } from '../../../src/exchange/endpoints.ts';
import { ExchangeClient } from '../../../src/exchange/exchange-client.ts';

export function makeClient(
  baseUrl: string,
  redis: Redis,
  prefix: string,
  overrides: Partial<ExchangeClientOptions> = {},
): ExchangeClient {
  return new ExchangeClient({
    baseUrl,
    apiKey: 'test-key',
    secretKey: 'test-secret',
    passphrase: 'test1234',
    uid: '1001',
    redis,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...overrides,
    rateBudget: { prefix, ipKey: 'test-host', ...overrides.rateBudget },
  });
}

/** Calls an endpoint's typed method by name, for tables of cases. */
export function callEndpoint(client: ExchangeClient, endpoint: EndpointName, params: unknown): Promise<unknown> {
  const method = client[endpoint] as (this: ExchangeClient, params: unknown) => Promise<unknown>;
  return method.call(client, params);
}
