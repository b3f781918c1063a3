import { z } from 'zod';

import { nonEmpty, oneOf, pageLimit, unixMs } from '../../exchange/requests/primitives.ts';
import { checkTimeRange } from '../../exchange/requests/time-range.ts';
import type { StreamEndpoint } from '../kit/stream-endpoint.ts';

export const TRANSFER_PAGE_SIZE = 100;

/** The widest range one request may cover (docs/exchange-api.md §5.5). */
export const DEPOSIT_WITHDRAWAL_MAX_DAYS = 7;

// Only one bound given: the exchange anchors a 7-day range at it, so nothing to check against now.
export const allSubDepositWithdrawalRequest = z
  .strictObject({
    startTime: unixMs().optional(),
    endTime: unixMs().optional(),
    limit: pageLimit(TRANSFER_PAGE_SIZE).optional(),
    cursor: nonEmpty('the endId of a previous page').optional(),
    status: oneOf(['pending', 'fail', 'success']).optional(),
  })
  .superRefine(checkTimeRange({ maxDays: DEPOSIT_WITHDRAWAL_MAX_DAYS }));

export type AllSubDepositWithdrawalParams = z.input<typeof allSubDepositWithdrawalRequest>;

/** Broker sub-accounts' deposits and withdrawals (docs/exchange-api.md §4.1, §5.5): 20 a second per UID. */
export const allSubDepositWithdrawalEndpoint = {
  name: 'allSubDepositWithdrawal',
  method: 'GET',
  path: '/api/v3/broker/all-sub-deposit-withdrawal',
  perSecond: 20,
  keyedBy: 'uid',
  signed: true,
  maxSpanDays: DEPOSIT_WITHDRAWAL_MAX_DAYS,
  pageLimit: TRANSFER_PAGE_SIZE,
  request: () => allSubDepositWithdrawalRequest,
} as const satisfies StreamEndpoint;
