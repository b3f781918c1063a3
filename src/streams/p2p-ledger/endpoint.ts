import { z } from 'zod';

import { nonEmpty, pageLimit, unixMs } from '../../exchange/requests/primitives.ts';
import { checkTimeRange } from '../../exchange/requests/time-range.ts';
import type { StreamEndpoint } from '../kit/stream-endpoint.ts';

/** The largest page the endpoint allows (the spec's maximum `limit`): what ingestion asks for. */
export const P2P_RECORD_PAGE_SIZE = 500;

/** The widest range read in one request: 30-day windows, as for margin-record (docs/exchange-api.md §8, decisions). */
export const P2P_RECORD_MAX_DAYS = 30;

export function p2pRecordRequest(now: () => number) {
  return z
    .strictObject({
      coin: nonEmpty('a coin').optional(),
      // Both required: the exchange has no default range for this endpoint.
      startTime: unixMs(),
      endTime: unixMs(),
      limit: pageLimit(P2P_RECORD_PAGE_SIZE).optional(),
      idLessThan: nonEmpty('the id of the last record of a previous page').optional(),
    })
    .superRefine(checkTimeRange({ maxDays: P2P_RECORD_MAX_DAYS, now }));
}

/** P2P finance records (docs/exchange-api.md §4.1, §5.9): 1 request a second per UID. */
export const p2pRecordEndpoint = {
  name: 'p2pRecord',
  method: 'GET',
  path: '/api/v2/tax/p2p-record',
  perSecond: 1,
  keyedBy: 'uid',
  signed: true,
  maxSpanDays: P2P_RECORD_MAX_DAYS,
  pageLimit: P2P_RECORD_PAGE_SIZE,
  request: p2pRecordRequest,
} as const satisfies StreamEndpoint;
