import { requirePermission } from '../auth/access.ts';
import { PRODUCT_TYPES } from '../data/markets.ts';
import { DAY } from '../data/time.ts';
import { errors } from '../envelope.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { enumQuery, limitParam, optionalId, optionalQuery, optionalTime } from './params.ts';

const HORIZON = 90 * DAY;

/** GET /api/v2/mix/position/history-position: newest first by (utime, positionId); endId = last positionId. */
export const historyPosition: PrivateEndpoint = {
  name: 'history-position',
  method: 'GET',
  path: '/api/v2/mix/position/history-position',
  perSecond: 20,
  auth: 'private',
  access: [(caller) => requirePermission(caller, 'read')],
  handle(ctx) {
    const q = ctx.query;
    const symbol = optionalQuery(q, 'symbol');
    // With a symbol, productType "has no effect" (docs/exchange-api.md §7.8): not even an unknown value is an error.
    const productType =
      symbol === undefined ? (enumQuery(q, 'productType', PRODUCT_TYPES) ?? 'USDT-FUTURES') : 'USDT-FUTURES';
    const idLessThan = optionalId(q, 'idLessThan');
    const startTime = optionalTime(q, 'startTime');
    const endTime = optionalTime(q, 'endTime');
    const limit = limitParam(q, 20, 100);
    const now = ctx.now;
    const horizon = now - HORIZON;
    const end = endTime ?? now;
    // A missing start is the 90 days before the end, but never earlier than the horizon.
    const start = startTime ?? Math.max(end - HORIZON, horizon);
    if (start > end) throw startTime === undefined ? errors.tooOld() : errors.startAfterEnd();
    if (start < horizon) throw errors.tooOld();
    if (end - start > HORIZON) throw errors.rangeTooLong(90);
    const store = ctx.sim.dataOf(ctx.caller.key.uid).positions;
    const found = store.query({
      ...(symbol === undefined ? {} : { symbol }),
      productType,
      startTime: start,
      endTime: end,
      ...(idLessThan === undefined ? {} : { idLessThan }),
      limit,
      now,
    });
    const list = found.map((i) => store.record(i, ctx.sim.timestampSpelling));
    return { list, endId: list.length > 0 ? list[list.length - 1]!.positionId! : null };
  },
};
