import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import type { ExchangeClient } from '../../exchange/index.ts';
import { instant } from '../describe.ts';
import type { FreshReads } from '../fresh-reads.ts';
import type { BalanceBreak, BalanceCheck } from '../report-types.ts';
import { anchorCoinEnds, type AnchorPlan } from './balance-anchors.ts';

/** At most this many breaks are listed (all are counted). */
export const BALANCE_BREAKS_LISTED = 50;

/**
 * Check 2: spot balance continuity (docs/exchange-api.md §5.4). For one coin, each
 * record's balance = the previous record's balance + amount + fee, records
 * ordered by ts then id (ids increase with time). Computed in Postgres with
 * exact numeric arithmetic and lag() over the stored rows; a number in
 * JavaScript never touches a balance.
 *
 * Ids are decimal strings: ordering by (length, text) is their numeric order
 * without a cast that a non-numeric id would break. A record missing from the
 * store shows up as a break at the next stored record of its coin; a missing
 * first or last record of a coin leaves none, so with the exchange at hand
 * the chain's ends are checked there too (balance-anchors.ts).
 */
export async function checkBalanceContinuity(
  pool: pg.Pool,
  accountId: string,
  /** When given, each coin's first and last stored records are also checked against the exchange. */
  anchors?: { plan: AnchorPlan; client: () => Promise<ExchangeClient>; fresh?: FreshReads },
): Promise<BalanceCheck> {
  const stats = await pool.query<{ records: string; coins: string }>(
    `SELECT count(*) AS records, count(DISTINCT coin) AS coins FROM spot_record WHERE account_id = $1`,
    [accountId],
  );
  const result = await pool.query<{
    coin: string;
    recordId: string;
    previousRecordId: string;
    ts: string;
    expected: string;
    stored: string;
    total: string;
  }>(
    `WITH ordered AS (
       SELECT coin, record_id, ts, amount, fee, balance,
              lag(balance) OVER w AS previous_balance,
              lag(record_id) OVER w AS previous_id
         FROM spot_record
        WHERE account_id = $1
       WINDOW w AS (PARTITION BY coin ORDER BY ts, length(record_id), record_id COLLATE "C")
     )
     SELECT coin, record_id AS "recordId", previous_id AS "previousRecordId", ${toMs('ts')} AS ts,
            (previous_balance + amount + fee)::text AS expected, balance::text AS stored,
            count(*) OVER () AS total
       FROM ordered
      WHERE previous_balance IS NOT NULL AND balance <> previous_balance + amount + fee
      ORDER BY coin, ts, length(record_id), record_id COLLATE "C"
      LIMIT $2`,
    [accountId, BALANCE_BREAKS_LISTED],
  );
  const breaks: BalanceBreak[] = result.rows.map(({ total: _total, ...b }) => ({ ...b, ts: Number(b.ts) }));
  const breakCount = Number(result.rows[0]?.total ?? 0);
  const failures = breaks.map(
    (b) =>
      `${b.coin}: record ${b.recordId} at ${instant(b.ts)} (after record ${b.previousRecordId}): ` +
      `stored balance ${b.stored}, expected ${b.expected} (previous balance + amount + fee)`,
  );
  if (breakCount > breaks.length) failures.push(`... and ${breakCount - breaks.length} more breaks`);
  const anchored = anchors ? await anchorCoinEnds(anchors.plan, anchors.client, anchors.fresh) : undefined;
  if (anchored) failures.push(...anchored.failures);
  const { records, coins } = stats.rows[0]!;
  return {
    name: 'balance-continuity',
    passed: breakCount === 0 && (anchored?.failures.length ?? 0) === 0,
    examined:
      `${records} records of ${coins} coins` +
      (anchored ? `; first and last records of ${anchored.coins} coins checked against the exchange` : ''),
    failures,
    notes: [],
    breaks,
    breakCount,
  };
}
