import { requirePermission } from '../auth/access.ts';
import { BufferPool } from '../data/buffer-pool.ts';
import { ByteWriter } from '../data/byte-writer.ts';
import { coinIndex } from '../data/coins.ts';
import { DAY } from '../data/time.ts';
import { errors, successPrefix } from '../envelope.ts';
import { type PrivateEndpoint, RawBody } from './endpoint.ts';
import { limitParam, optionalId, optionalQuery, optionalTime } from './params.ts';

const MAX_RANGE = 30 * DAY;
// Pages are written synchronously, one at a time: one buffer serves them all.
const writer = new ByteWriter();
const pool = new BufferPool();

/** GET /api/v2/tax/spot-record: a bare array, newest first by (ts, id); the next page is idLessThan = last id. */
export const spotRecord: PrivateEndpoint = {
  name: 'spot-record',
  method: 'GET',
  path: '/api/v2/tax/spot-record',
  perSecond: 1,
  auth: 'private',
  access: [(caller) => requirePermission(caller, 'read')],
  handle(ctx) {
    const q = ctx.query;
    const coin = optionalQuery(q, 'coin');
    const startTime = optionalTime(q, 'startTime');
    const endTime = optionalTime(q, 'endTime');
    const idLessThan = optionalId(q, 'idLessThan');
    const limit = limitParam(q, 500, 500);
    const end = endTime ?? ctx.now;
    const start = startTime ?? end - MAX_RANGE;
    if (start > end) throw errors.startAfterEnd();
    if (end - start > MAX_RANGE) throw errors.rangeTooLong(30);
    const store = ctx.sim.dataOf(ctx.caller.key.uid).spot;
    const found = store.query({
      ...(coin === undefined ? {} : { coin: coinIndex(coin.toUpperCase()) }),
      startTime: start,
      endTime: end,
      ...(idLessThan === undefined ? {} : { idLessThan }),
      limit,
      now: ctx.now,
    });
    writer.reset().ascii(successPrefix(ctx.now));
    store.writeJson(found, writer);
    const { bytes, release } = pool.copy(writer.byte(125).view());
    return new RawBody(bytes, release);
  },
};
