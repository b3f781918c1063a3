import { requirePermission } from '../auth/access.ts';
import { p2pRecord } from '../data/ledger-records.ts';
import { DAY } from '../data/time.ts';
import { errors } from '../envelope.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { limitParam, optionalId, optionalQuery, requiredTime } from './params.ts';

const MAX_RANGE = 30 * DAY;

/**
 * GET /api/v2/tax/p2p-record: a bare array, newest first by (ts, id); the next page is
 * idLessThan = last id. startTime and endTime are required (docs/exchange-api.md §5.9).
 */
export const p2pRecordRoute: PrivateEndpoint = {
  name: 'p2p-record',
  method: 'GET',
  path: '/api/v2/tax/p2p-record',
  perSecond: 1,
  auth: 'private',
  access: [(caller) => requirePermission(caller, 'read')],
  handle(ctx) {
    const q = ctx.query;
    const coin = optionalQuery(q, 'coin')?.toUpperCase();
    const start = requiredTime(q, 'startTime');
    const end = requiredTime(q, 'endTime');
    const idLessThan = optionalId(q, 'idLessThan');
    const limit = limitParam(q, 500, 500);
    if (start > end) throw errors.startAfterEnd();
    if (end - start > MAX_RANGE) throw errors.rangeTooLong(30);
    const store = ctx.sim.dataOf(ctx.caller.key.uid).p2p;
    return store
      .query({
        matches: (row) => coin === undefined || p2pRecord(row).coin === coin,
        startTime: start,
        endTime: end,
        ...(idLessThan === undefined ? {} : { idLessThan }),
        limit,
        now: ctx.now,
      })
      .map(p2pRecord);
  },
};
