import { z } from 'zod';

import { HORIZON_MARGIN_MS, horizonStart } from '../../exchange/index.ts';
import { FUTURES_CATEGORIES, nonEmpty, oneOf, pageLimit, unixMs } from '../../exchange/requests/primitives.ts';
import { checkTimeRange } from '../../exchange/requests/time-range.ts';
import type { StreamEndpoint } from '../kit/stream-endpoint.ts';

export const POSITION_PAGE_SIZE = 100;

/** The widest range one request may cover (docs/exchange-api.md §5.3). */
export const HISTORY_POSITION_MAX_DAYS = 90;

/**
 * history-position serves only data of the last 3 months, read as 90 days
 * (docs/exchange-api.md §5.3). The one place the horizon is decided: the
 * request rule, the planner, the pager and (through the stream's `horizon`)
 * every plan and check read it.
 */
export const POSITION_HORIZON_DAYS = 90;

export function historyPositionRequest(now: () => number) {
  return z
    .strictObject({
      symbol: nonEmpty('a symbol').optional(),
      productType: oneOf(FUTURES_CATEGORIES).optional(),
      idLessThan: nonEmpty('the endId of a previous page').optional(),
      startTime: unixMs().optional(),
      endTime: unixMs().optional(),
      limit: pageLimit(POSITION_PAGE_SIZE).optional(),
    })
    .superRefine(
      checkTimeRange({
        maxDays: HISTORY_POSITION_MAX_DAYS,
        missingEndIsNow: true,
        horizonDays: POSITION_HORIZON_DAYS,
        now,
      }),
    );
}

export type HistoryPositionParams = z.input<ReturnType<typeof historyPositionRequest>>;

/** Closed futures positions (docs/exchange-api.md §4.1, §5.3): 20 requests a second per UID. */
export const historyPositionEndpoint = {
  name: 'historyPosition',
  method: 'GET',
  path: '/api/v2/mix/position/history-position',
  perSecond: 20,
  keyedBy: 'uid',
  signed: true,
  maxSpanDays: HISTORY_POSITION_MAX_DAYS,
  horizonDays: POSITION_HORIZON_DAYS,
  pageLimit: POSITION_PAGE_SIZE,
  request: historyPositionRequest,
} as const satisfies StreamEndpoint;

/** The oldest start the exchange still serves positions for, with the margin. */
export function positionHorizon(now: number, marginMs = HORIZON_MARGIN_MS): number {
  return horizonStart(historyPositionEndpoint, now, marginMs);
}
