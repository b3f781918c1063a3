import type pg from 'pg';

import type { AccountingCategory } from '../../booking/categories.ts';
import { bookingArrays } from '../../booking/spot-bookings.ts';
import { utcTime } from '../../booking/sql-fragments.ts';
import { tradeOrderCtes } from '../../booking/trade-orders.ts';
import { PrefetchingQueryStream } from '../prefetching-query-stream.ts';

/** One spot record of the period, as the journal books it. Amounts are Postgres' exact text. */
export interface JournalLeg {
  readonly recordId: string;
  /** The local date (the session's zone: the period's). */
  readonly day: string;
  readonly timeUtc: string;
  readonly coin: string;
  readonly spotTaxType: string;
  readonly category: AccountingCategory;
  /** The booking is a guess an accountant should confirm (spot-tax-types.ts `review`). */
  readonly review: boolean;
  /** A trade leg of an order that pairs (trade-orders.ts), even when booked alone. */
  readonly inPairedOrder: boolean;
  readonly amount: string;
  readonly fee: string;
  readonly bizOrderId: string;
}

/**
 * The legs of one journal transaction: the legs of one paired fill (or of one order, one side
 * summed) when all of them lie in the period, else a single record.
 */
export interface JournalGroup {
  readonly paired: boolean;
  readonly legs: readonly JournalLeg[];
}

/**
 * The period's records grouped into transactions, in order of each group's earliest leg (then its
 * smallest id), streamed by a cursor so memory stays flat. Pairing is the tax-tool files' own
 * (trade-orders.ts); a fill whose legs straddle the period's start or end is booked leg by leg, so
 * every record lands in the period of its own time and the balance assertions hold.
 */
export async function* journalGroups(
  db: pg.ClientBase,
  options: { accountId: string; start: Date; end: Date },
): AsyncGenerator<JournalGroup> {
  const booking = bookingArrays();
  const tradeTypes = booking.types.filter((_, i) => booking.categories[i] === 'trade');
  const values = [
    options.accountId,
    options.start.toISOString(),
    options.end.toISOString(),
    booking.types,
    booking.categories,
    booking.review,
    tradeTypes,
  ];
  const rows = db.query(new PrefetchingQueryStream(GROUPS_SQL, values, { batchSize: 1_000 }));
  let group: JournalLeg[] = [];
  let key: string | undefined;
  let paired = false;
  for await (const row of rows as AsyncIterable<JournalLeg & { grp: string }>) {
    if (row.grp !== key && group.length > 0) {
      yield { paired, legs: group };
      group = [];
    }
    key = row.grp;
    paired = row.grp.startsWith('o');
    const { grp: _grp, ...leg } = row;
    group.push(leg);
  }
  if (group.length > 0) yield { paired, legs: group };
}

// $1 account, $2 start, $3 end, $4-$6 the booking table (types, categories, review), $7 trade types.
const GROUPS_SQL = `
WITH ledger AS (
  SELECT s.record_id, s.ts, s.coin, s.spot_tax_type, s.amount, s.fee, s.biz_order_id,
         ($5::text[])[array_position($4::text[], s.spot_tax_type)] AS category,
         coalesce(($6::boolean[])[array_position($4::text[], s.spot_tax_type)], false) AS review
  FROM spot_record s
  WHERE s.account_id = $1::uuid AND s.ts >= $2::timestamptz AND s.ts < $3::timestamptz
),
${tradeOrderCtes('$1::uuid', '$7::text[]')},
grouped AS (
  -- The period's legs of orders that pair: one group per fill when all its legs lie in the period.
  SELECT record_id, ts, coin, spot_tax_type, amount, fee, biz_order_id, 'trade' AS category, false AS review,
         true AS in_order,
         CASE WHEN bool_and(ts >= $2::timestamptz AND ts < $3::timestamptz) OVER (PARTITION BY biz_order_id, fill)
              THEN 'o' || fill || ':' || biz_order_id ELSE 'r:' || record_id END AS grp
  FROM numbered
  -- (the window sees every leg of the fill; the period's legs are kept below)
),
period_legs AS (
  SELECT * FROM grouped WHERE ts >= $2::timestamptz AND ts < $3::timestamptz
  UNION ALL
  SELECT record_id, ts, coin, spot_tax_type, amount, fee, biz_order_id, category, review, false, 'r:' || record_id
  FROM ledger
  WHERE NOT (coalesce(category, '') = 'trade' AND biz_order_id IN (SELECT biz_order_id FROM orders))
)
SELECT grp, record_id AS "recordId", to_char(ts, 'YYYY-MM-DD') AS day, ${utcTime('ts')} AS "timeUtc", coin,
       spot_tax_type AS "spotTaxType", coalesce(category, 'unmapped') AS category, review,
       in_order AS "inPairedOrder", amount::text AS amount, fee::text AS fee, biz_order_id AS "bizOrderId"
FROM period_legs
WINDOW w AS (PARTITION BY grp)
ORDER BY min(ts) OVER w, min(record_id COLLATE "C") OVER w, grp COLLATE "C", amount > 0, ts, length(record_id),
         record_id COLLATE "C"`;
