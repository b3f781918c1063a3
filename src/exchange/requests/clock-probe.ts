import { z } from 'zod';

import { pageLimit } from './primitives.ts';

/**
 * The request `exchangeNow` sends to learn the exchange's clock: one spot
 * record (any read key may call the endpoint). Only the answer's
 * `requestTime` is wanted, so its records are not read; the spot stream
 * (src/streams/spot) owns their shape.
 */
export const clockProbe = z.strictObject({ limit: pageLimit(1) });

export const clockProbeData = z.array(z.unknown());
