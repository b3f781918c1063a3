import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import type { ExchangeClient } from '../../exchange/index.ts';
import { coveredRanges, type Range } from '../../ingest/coverage/window-store.ts';
import { instant } from '../describe.ts';

const DAY = 86_400_000;
/** One request may span at most 30 days (spec, spot-record). */
const SPAN = 30 * DAY - 1;

export interface AnchorResult {
  /** Coins whose first and last stored records were checked against the exchange. */
  coins: number;
  failures: string[];
}

/**
 * The ends of each coin's balance chain, checked against the exchange. The
 * chain itself shows a missing record only between two stored ones: a
 * missing first or last record of a coin leaves no break. So, per coin, one
 * request asks for a record just before the first stored one (up to 30 days
 * back, within covered time), and one asks for the newest record in the
 * covered time up to 30 days after the last stored one: any answer other
 * than "none" and "the same record" is a stored copy that lacks a record.
 */
export async function anchorCoinEnds(
  pool: pg.Pool,
  accountId: string,
  client: () => Promise<ExchangeClient>,
): Promise<AnchorResult> {
  const ends = await pool.query<{ coin: string; firstId: string; firstTs: string; lastId: string; lastTs: string }>(
    `SELECT DISTINCT ON (coin) coin,
            first_value(record_id) OVER w AS "firstId", ${toMs('first_value(ts) OVER w')} AS "firstTs",
            last_value(record_id) OVER w AS "lastId", ${toMs('last_value(ts) OVER w')} AS "lastTs"
       FROM spot_record WHERE account_id = $1
     WINDOW w AS (PARTITION BY coin ORDER BY ts, length(record_id), record_id COLLATE "C"
                  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
      ORDER BY coin`,
    [accountId],
  );
  if (ends.rows.length === 0) return { coins: 0, failures: [] };
  const covered = await coveredRanges(pool, { accountId, stream: 'spot', scope: '' });
  const holding = (ts: number): Range | undefined => covered.find((r) => r.start <= ts && ts < r.end);
  const exchange = await client();
  const failures: string[] = [];
  for (const end of ends.rows) {
    const firstTs = Number(end.firstTs);
    const before = holding(firstTs);
    if (before) {
      const [earlier] = await exchange.spotRecord({
        coin: end.coin,
        startTime: String(Math.max(before.start, firstTs - SPAN)),
        endTime: String(firstTs),
        idLessThan: end.firstId,
        limit: 1,
      });
      if (earlier) {
        failures.push(
          `${end.coin}: record ${earlier.id} at ${instant(Number(earlier.ts))} is on the exchange but not stored, ` +
            `before the first stored record ${end.firstId}`,
        );
      }
    }
    const lastTs = Number(end.lastTs);
    const after = holding(lastTs);
    if (after) {
      const endTime = Math.min(after.end - 1, lastTs + SPAN);
      const [newest] = await exchange.spotRecord({
        coin: end.coin,
        startTime: String(lastTs),
        endTime: String(endTime),
        limit: 1,
      });
      if (newest && newest.id !== end.lastId) {
        failures.push(
          `${end.coin}: record ${newest.id} at ${instant(Number(newest.ts))} is on the exchange but not stored, ` +
            `after the last stored record ${end.lastId}`,
        );
      }
    }
  }
  return { coins: ends.rows.length, failures };
}
