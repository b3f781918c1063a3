import { requirePermission } from '../auth/access.ts';
import { marginRecord } from '../data/ledger-records.ts';
import { MARGIN_TYPES } from '../data/margin-generator.ts';
import { DAY } from '../data/time.ts';
import { errors } from '../envelope.ts';
import type { PrivateEndpoint } from './endpoint.ts';
import { enumQuery, limitParam, optionalId, optionalQuery, requiredTime } from './params.ts';

/** The older copies' widest span, which every copy accepts (docs/exchange-api.md §5.8). */
const MAX_RANGE = 30 * DAY;

/**
 * GET /api/v2/tax/margin-record: a bare array like spot-record, newest first by (ts, id), of one
 * margin type (default crossed); the next page is idLessThan = last id. startTime and endTime are
 * required (docs/exchange-api.md §5.8).
 */
export const marginRecordRoute: PrivateEndpoint = {
  name: 'margin-record',
  method: 'GET',
  path: '/api/v2/tax/margin-record',
  perSecond: 1,
  auth: 'private',
  access: [(caller) => requirePermission(caller, 'read')],
  handle(ctx) {
    const q = ctx.query;
    const marginType = enumQuery(q, 'marginType', MARGIN_TYPES) ?? 'crossed';
    const coin = optionalQuery(q, 'coin')?.toUpperCase();
    const start = requiredTime(q, 'startTime');
    const end = requiredTime(q, 'endTime');
    const idLessThan = optionalId(q, 'idLessThan');
    const limit = limitParam(q, 500, 500);
    if (start > end) throw errors.startAfterEnd();
    if (end - start > MAX_RANGE) throw errors.rangeTooLong(30);
    const store = ctx.sim.dataOf(ctx.caller.key.uid).margin;
    return store
      .query({
        matches: (row) => row.marginType === marginType && (coin === undefined || marginRecord(row).coin === coin),
        startTime: start,
        endTime: end,
        ...(idLessThan === undefined ? {} : { idLessThan }),
        limit,
        now: ctx.now,
      })
      .map(marginRecord);
  },
};
