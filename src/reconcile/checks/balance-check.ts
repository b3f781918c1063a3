import type pg from 'pg';

import { toMs } from '../../db/sql-time.ts';
import type { ExchangeClient } from '../../exchange/index.ts';
import { instant } from '../describe.ts';
import type { FreshReads } from '../fresh-reads.ts';
import type { BalanceBreak, BalanceCheck } from '../report-types.ts';
import { anchorCoinEnds, type AnchorPlan } from './balance-anchors.ts';
import { type ChainScope, type Checkpoint, isBefore, saveCheckpoints } from './balance-checkpoint.ts';

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
 *
 * Incremental (balance-checkpoint.ts): each coin's verified chain ends at its
 * checkpoint, and a nightly check reads only the records from the scope's
 * start on, each coin's first one chained to its last record before; a full
 * check (no checkpoint yet, `reconcile --full`, the schedule) reads every
 * record. Either way the checkpoints move to each coin's last record read, or
 * stay before a coin's first break so that it is reported until mended.
 */
export async function checkBalanceContinuity(
  pool: pg.Pool,
  accountId: string,
  scope: ChainScope,
  /** When given, the planned first and last records are also checked against the exchange. */
  anchors?: { plan: AnchorPlan; client: () => Promise<ExchangeClient>; fresh?: FreshReads },
): Promise<BalanceCheck> {
  const before = scope.full ? [] : [...scope.before.entries()];
  const result = await pool.query<{
    records: string;
    total: string;
    listed: BreakRow[] | null;
    firsts: BreakRow[] | null;
  }>(
    `WITH seeded AS (
       SELECT coin, record_id, ts, amount, fee, balance, true AS read FROM spot_record
        WHERE account_id = $1 AND ts >= timestamptz 'epoch' + $2::bigint * interval '1 millisecond'
       UNION ALL
       SELECT coin, record_id, timestamptz 'epoch' + ms * interval '1 millisecond', 0, 0, balance, false
         FROM unnest($3::text[], $4::text[], $5::bigint[], $6::numeric[]) AS b(coin, record_id, ms, balance)
     ),
     ordered AS (
       SELECT coin, record_id, ts, amount, fee, balance, read,
              lag(balance) OVER w AS previous_balance, lag(record_id) OVER w AS previous_id, lag(ts) OVER w AS previous_ts
         FROM seeded
       WINDOW w AS (PARTITION BY coin ORDER BY ts, length(record_id), record_id COLLATE "C")
     ),
     breaks AS MATERIALIZED (
       SELECT coin, record_id AS "recordId", previous_id AS "previousRecordId", ${toMs('ts')} AS ts,
              ${toMs('previous_ts')} AS "previousTs", previous_balance::text AS "previousBalance",
              (previous_balance + amount + fee)::text AS expected, balance::text AS stored,
              length(record_id) AS id_length
         FROM ordered
        WHERE read AND previous_balance IS NOT NULL AND balance <> previous_balance + amount + fee
     )
     SELECT (SELECT count(*) FROM ordered WHERE read) AS records,
            (SELECT count(*) FROM breaks) AS total,
            (SELECT json_agg(b) FROM (SELECT * FROM breaks
                ORDER BY coin, ts::bigint, id_length, "recordId" COLLATE "C" LIMIT $7) b) AS listed,
            (SELECT json_agg(f) FROM (SELECT DISTINCT ON (coin) * FROM breaks
                ORDER BY coin, ts::bigint, id_length, "recordId" COLLATE "C") f) AS firsts`,
    [
      accountId,
      scope.full ? '0' : String(scope.from),
      before.map(([coin]) => coin),
      before.map(([, r]) => r.recordId),
      before.map(([, r]) => String(r.ts)),
      before.map(([, r]) => r.balance),
      BALANCE_BREAKS_LISTED,
    ],
  );
  const row = result.rows[0]!;
  const breaks: BalanceBreak[] = (row.listed ?? []).map((b) => ({
    coin: b.coin,
    recordId: b.recordId,
    previousRecordId: b.previousRecordId,
    ts: Number(b.ts),
    expected: b.expected,
    stored: b.stored,
  }));
  const breakCount = Number(row.total);
  const failures = breaks.map(
    (b) =>
      `${b.coin}: record ${b.recordId} at ${instant(b.ts)} (after record ${b.previousRecordId}): ` +
      `stored balance ${b.stored}, expected ${b.expected} (previous balance + amount + fee)`,
  );
  if (breakCount > breaks.length) failures.push(`... and ${breakCount - breaks.length} more breaks`);
  await saveCheckpoints(pool, accountId, nextCheckpoints(scope, row.firsts ?? []), scope.watermark);
  const anchored = anchors ? await anchorCoinEnds(anchors.plan, anchors.client, anchors.fresh) : undefined;
  if (anchored) failures.push(...anchored.failures);
  const records = Number(row.records);
  const coins = scope.ends.length;
  const read = scope.full
    ? `${records} records of ${coins} coins`
    : `${records} records of ${coins} coins from ${instant(scope.from)} on, each chained to its verified checkpoint`;
  return {
    name: 'balance-continuity',
    passed: breakCount === 0 && (anchored?.failures.length ?? 0) === 0,
    examined:
      read + (anchored ? `; first and last records of ${anchored.coins} coins checked against the exchange` : ''),
    failures,
    notes: [],
    breaks,
    breakCount,
    ...(anchored ? { anchorRequests: anchored.requests } : {}),
  };
}

interface BreakRow {
  coin: string;
  recordId: string;
  previousRecordId: string;
  ts: string;
  previousTs: string;
  previousBalance: string;
  expected: string;
  stored: string;
}

/** Each coin's checkpoint after the check: its last record read, or the record before its first break. */
function nextCheckpoints(scope: ChainScope, firstBreaks: BreakRow[]): Checkpoint[] {
  const broken = new Map(firstBreaks.map((b) => [b.coin, b]));
  const next = new Map(scope.checkpoints);
  for (const ends of scope.ends) {
    const earlier = scope.checkpoints.get(ends.coin);
    const first = earlier && !scope.full && isBefore(earlier.first, ends.first) ? earlier.first : ends.first;
    const found = broken.get(ends.coin);
    next.set(ends.coin, {
      coin: ends.coin,
      first: { recordId: first.recordId, ts: first.ts },
      last: found
        ? { recordId: found.previousRecordId, ts: Number(found.previousTs), balance: found.previousBalance }
        : ends.last,
      broken: found !== undefined,
    });
  }
  return [...next.values()];
}
