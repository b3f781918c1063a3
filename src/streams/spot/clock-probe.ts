import { z } from 'zod';

import type { ExchangeClient } from '../../exchange/index.ts';
import { pageLimit } from '../../exchange/requests/primitives.ts';
import { spotRecordEndpoint } from './endpoint.ts';

/**
 * The request `exchangeNow` sends to learn the exchange's clock: one spot
 * record (any read key may call the endpoint). Only the answer's
 * `requestTime` is wanted, so its records are not read.
 */
export const clockProbe = z.strictObject({ limit: pageLimit(1) });

export const clockProbeData = z.array(z.unknown());

/**
 * The exchange's "now", asking it first when no answer has shown its clock yet: one spot-record
 * request for a single record (the history endpoint every read key may call), spending the spot
 * stream's own rate budget. Plans and horizons use this, never the local clock
 * (docs/exchange-api.md §3.1).
 */
export async function exchangeNow(client: ExchangeClient): Promise<number> {
  if (!client.knowsExchangeClock) await client.call(spotRecordEndpoint, clockProbe, clockProbeData, { limit: 1 });
  return client.now();
}
