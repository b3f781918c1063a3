import { z } from 'zod';

import { nonEmpty, oneOf, pageLimit, unixMs } from '../../exchange/requests/primitives.ts';
import { checkTimeRange } from '../../exchange/requests/time-range.ts';
import type { StreamEndpoint } from '../kit/stream-endpoint.ts';

/** The margin account's two kinds, read as two scopes (the endpoint's default is `crossed`). */
export const MARGIN_TYPES = ['crossed', 'isolated'] as const;

/** The largest page the endpoint allows (the spec's maximum `limit`): what ingestion asks for. */
export const MARGIN_RECORD_PAGE_SIZE = 500;

/**
 * The widest range read in one request. The documentation's copies disagree (30 days, 366 days):
 * 30-day windows are what both accept (docs/exchange-api.md §8, decisions); a stream fact.
 */
export const MARGIN_RECORD_MAX_DAYS = 30;

export function marginRecordRequest(now: () => number) {
  return z
    .strictObject({
      marginType: oneOf(MARGIN_TYPES).optional(),
      coin: nonEmpty('a coin').optional(),
      // Both required: the exchange has no default range for this endpoint.
      startTime: unixMs(),
      endTime: unixMs(),
      limit: pageLimit(MARGIN_RECORD_PAGE_SIZE).optional(),
      idLessThan: nonEmpty('the id of the last record of a previous page').optional(),
    })
    .superRefine(checkTimeRange({ maxDays: MARGIN_RECORD_MAX_DAYS, now }));
}

/** Margin finance records (docs/exchange-api.md §4.1, §5.8): 1 request a second per UID. */
export const marginRecordEndpoint = {
  name: 'marginRecord',
  method: 'GET',
  path: '/api/v2/tax/margin-record',
  perSecond: 1,
  keyedBy: 'uid',
  signed: true,
  maxSpanDays: MARGIN_RECORD_MAX_DAYS,
  pageLimit: MARGIN_RECORD_PAGE_SIZE,
  request: marginRecordRequest,
} as const satisfies StreamEndpoint;
