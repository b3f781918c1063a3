import { z } from 'zod';

import { HORIZON_MARGIN_MS, horizonStart } from '../../exchange/index.ts';
import { FUTURES_CATEGORIES, nonEmpty, oneOf, pageLimit, unixMs } from '../../exchange/requests/primitives.ts';
import { checkTimeRange } from '../../exchange/requests/time-range.ts';
import type { StreamEndpoint } from '../kit/stream-endpoint.ts';

/** The largest page the endpoint allows (the spec's maximum `limit`): what ingestion asks for. */
export const FUTURE_RECORD_PAGE_SIZE = 500;

/** The widest range one request may cover (docs/exchange-api.md §5.6). */
export const FUTURE_RECORD_MAX_DAYS = 30;

/**
 * How far back future-record serves. The documentation states no limit; ledgerline assumes a
 * year and a day (a leap year's 366 days, the figure one copy of the page gives as its range),
 * docs/exchange-api.md §8 (decisions). The one place it is decided: the planner, the status
 * warnings and every check read it through the stream's `horizon`.
 */
export const FUTURE_RECORD_HORIZON_DAYS = 366;

export function futureRecordRequest(now: () => number) {
  return z
    .strictObject({
      productType: oneOf(FUTURES_CATEGORIES).optional(),
      marginCoin: nonEmpty('a margin coin').optional(),
      // Both required: the exchange has no default range for this endpoint.
      startTime: unixMs(),
      endTime: unixMs(),
      limit: pageLimit(FUTURE_RECORD_PAGE_SIZE).optional(),
      idLessThan: nonEmpty('the id of the last record of a previous page').optional(),
    })
    .superRefine(checkTimeRange({ maxDays: FUTURE_RECORD_MAX_DAYS, now }));
}

export type FutureRecordParams = z.input<ReturnType<typeof futureRecordRequest>>;

/** Futures finance records (docs/exchange-api.md §4.1, §5.6): 1 request a second per UID. */
export const futureRecordEndpoint = {
  name: 'futureRecord',
  method: 'GET',
  path: '/api/v2/tax/future-record',
  perSecond: 1,
  keyedBy: 'uid',
  signed: true,
  maxSpanDays: FUTURE_RECORD_MAX_DAYS,
  horizonDays: FUTURE_RECORD_HORIZON_DAYS,
  pageLimit: FUTURE_RECORD_PAGE_SIZE,
  request: futureRecordRequest,
} as const satisfies StreamEndpoint;

/** The oldest start future-record is assumed to serve, with the margin. */
export function futureRecordHorizon(now: number, marginMs = HORIZON_MARGIN_MS): number {
  return horizonStart(futureRecordEndpoint, now, marginMs);
}
