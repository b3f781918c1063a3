import { DateTime } from 'luxon';

import { requireBrokerParent, requirePermission } from '../auth/access.ts';
import { DAY } from '../data/time.ts';
import { errors } from '../envelope.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { enumQuery, limitParam, optionalId, optionalTime } from './params.ts';

const MAX_RANGE = 7 * DAY;
const STATUSES = ['pending', 'fail', 'success'] as const;

/**
 * GET /api/v3/broker/all-sub-deposit-withdrawal: newest first by (ts, txId),
 * ts being the last update; data.endId is the cursor of the next page.
 */
export const depositWithdrawal: PrivateEndpoint = {
  name: 'all-sub-deposit-withdrawal',
  method: 'GET',
  path: '/api/v3/broker/all-sub-deposit-withdrawal',
  perSecond: 20,
  auth: 'private',
  access: [requireBrokerParent, (caller) => requirePermission(caller, 'read')],
  handle(ctx) {
    const q = ctx.query;
    const startTime = optionalTime(q, 'startTime');
    const endTime = optionalTime(q, 'endTime');
    const limit = limitParam(q, 100, 100);
    const status = enumQuery(q, 'status', STATUSES);
    const cursor = optionalId(q, 'cursor');
    const [start, end] = window(startTime, endTime, ctx.now);
    if (start > end) throw errors.startAfterEnd();
    if (end - start > MAX_RANGE) throw errors.rangeTooLong(7);
    const store = ctx.sim.dataOf(ctx.caller.main.uid).transfers;
    const found = store.query({
      startTime: start,
      endTime: end,
      ...(status === undefined ? {} : { status }),
      ...(cursor === undefined ? {} : { cursor }),
      limit,
      now: ctx.now,
    });
    const list = found.map((item) => store.record(item, ctx.now));
    return { list, endId: list.length > 0 ? list[list.length - 1]!.txId : null };
  },
};

/** Both empty: yesterday (UTC); one given: the 7 days anchored at it. */
function window(startTime: number | undefined, endTime: number | undefined, now: number): [number, number] {
  if (startTime === undefined && endTime === undefined) {
    const today = DateTime.fromMillis(now, { zone: 'utc' }).startOf('day');
    return [today.minus({ days: 1 }).toMillis(), today.toMillis() - 1];
  }
  if (startTime === undefined) return [endTime! - MAX_RANGE, endTime!];
  if (endTime === undefined) return [startTime, startTime + MAX_RANGE];
  return [startTime, endTime];
}
