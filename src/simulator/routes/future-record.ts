import { requirePermission } from '../auth/access.ts';
import { PRODUCT_TYPES } from '../data/markets.ts';
import { DAY } from '../data/time.ts';
import { errors } from '../envelope.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { enumQuery, limitParam, optionalId, optionalQuery, requiredQuery } from './params.ts';

const MAX_RANGE = 30 * DAY;

/**
 * GET /api/v2/tax/future-record: a bare array like spot-record, newest first by (ts, id); the next
 * page is idLessThan = last id. startTime and endTime are required (docs/exchange-api.md §5.6).
 */
export const futureRecord: PrivateEndpoint = {
  name: 'future-record',
  method: 'GET',
  path: '/api/v2/tax/future-record',
  perSecond: 1,
  auth: 'private',
  access: [(caller) => requirePermission(caller, 'read')],
  handle(ctx) {
    const q = ctx.query;
    const productType = enumQuery(q, 'productType', PRODUCT_TYPES) ?? 'USDT-FUTURES';
    const marginCoin = optionalQuery(q, 'marginCoin');
    const start = time(q, 'startTime');
    const end = time(q, 'endTime');
    const idLessThan = optionalId(q, 'idLessThan');
    const limit = limitParam(q, 500, 500);
    if (start > end) throw errors.startAfterEnd();
    if (end - start > MAX_RANGE) throw errors.rangeTooLong(30);
    const store = ctx.sim.dataOf(ctx.caller.key.uid).futures;
    const found = store.query({
      productType,
      ...(marginCoin === undefined ? {} : { marginCoin: marginCoin.toUpperCase() }),
      startTime: start,
      endTime: end,
      ...(idLessThan === undefined ? {} : { idLessThan }),
      limit,
      now: ctx.now,
    });
    return found.map((i) => store.record(i));
  },
};

function time(query: URLSearchParams, name: string): number {
  const value = requiredQuery(query, name);
  if (!/^\d{1,15}$/.test(value)) throw errors.invalidParam(name);
  return Number(value);
}
