import { z } from 'zod';

import { nonEmpty, pageLimit, unixMs } from '../../exchange/requests/primitives.ts';
import { checkTimeRange } from '../../exchange/requests/time-range.ts';
import type { StreamEndpoint } from '../kit/stream-endpoint.ts';

/** The largest page the endpoint allows (the spec's maximum `limit`): what ingestion asks for. */
export const SPOT_PAGE_SIZE = 500;

/** The widest range one request may cover (docs/exchange-api.md §5.4). */
export const SPOT_RECORD_MAX_DAYS = 30;

export function spotRecordRequest(now: () => number) {
  return z
    .strictObject({
      coin: nonEmpty('a coin').optional(),
      startTime: unixMs().optional(),
      endTime: unixMs().optional(),
      limit: pageLimit(SPOT_PAGE_SIZE).optional(),
      idLessThan: nonEmpty('the id of the last record of a previous page').optional(),
    })
    .superRefine(checkTimeRange({ maxDays: SPOT_RECORD_MAX_DAYS, missingEndIsNow: true, now }));
}

export type SpotRecordParams = z.input<ReturnType<typeof spotRecordRequest>>;

/** Spot finance records (docs/exchange-api.md §4.1, §5.4): 1 request a second per UID. */
export const spotRecordEndpoint = {
  name: 'spotRecord',
  method: 'GET',
  path: '/api/v2/tax/spot-record',
  perSecond: 1,
  keyedBy: 'uid',
  signed: true,
  maxSpanDays: SPOT_RECORD_MAX_DAYS,
  pageLimit: SPOT_PAGE_SIZE,
  request: spotRecordRequest,
} as const satisfies StreamEndpoint;
