import { z } from 'zod';

import { FUTURES_CATEGORIES, nonEmpty, oneOf, pageLimit, unixMs } from './primitives.ts';
import { checkTimeRange } from './time-range.ts';

export const HISTORY_POSITION_MAX_DAYS = 90;
export const SPOT_RECORD_MAX_DAYS = 30;
export const DEPOSIT_WITHDRAWAL_MAX_DAYS = 7;
/** history-position serves only data of the last 3 months, read as 90 days (docs/exchange-api.md §5.3). */
export const POSITION_HORIZON_DAYS = 90;

export function historyPositionRequest(now: () => number) {
  return z
    .strictObject({
      symbol: nonEmpty('a symbol').optional(),
      productType: oneOf(FUTURES_CATEGORIES).optional(),
      idLessThan: nonEmpty('the endId of a previous page').optional(),
      startTime: unixMs().optional(),
      endTime: unixMs().optional(),
      limit: pageLimit(100).optional(),
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

export function spotRecordRequest(now: () => number) {
  return z
    .strictObject({
      coin: nonEmpty('a coin').optional(),
      startTime: unixMs().optional(),
      endTime: unixMs().optional(),
      limit: pageLimit(500).optional(),
      idLessThan: nonEmpty('the id of the last record of a previous page').optional(),
    })
    .superRefine(checkTimeRange({ maxDays: SPOT_RECORD_MAX_DAYS, missingEndIsNow: true, now }));
}

// Only one bound given: the exchange anchors a 7-day range at it, so nothing to check against now.
export const allSubDepositWithdrawalRequest = z
  .strictObject({
    startTime: unixMs().optional(),
    endTime: unixMs().optional(),
    limit: pageLimit(100).optional(),
    cursor: nonEmpty('the endId of a previous page').optional(),
    status: oneOf(['pending', 'fail', 'success']).optional(),
  })
  .superRefine(checkTimeRange({ maxDays: DEPOSIT_WITHDRAWAL_MAX_DAYS }));

export type HistoryPositionParams = z.input<ReturnType<typeof historyPositionRequest>>;
export type SpotRecordParams = z.input<ReturnType<typeof spotRecordRequest>>;
export type AllSubDepositWithdrawalParams = z.input<typeof allSubDepositWithdrawalRequest>;
