import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { roundedQuotient } from './price-arithmetic.ts';
import { TRADE_SOURCE } from './price-point.ts';
import type { RefreshTradePricesResult } from './refresh-trade-prices.ts';
import { type TradePointRow, tradePointsQuery } from './trade-points-query.ts';

/**
 * The instants whose trade points may have changed since `since`: every spot record lies in the
 * range of the window whose read stored it, and every stored page stamps its window's
 * `updated_at`, so a record that arrived or changed since then lies in a spot window updated
 * since. Its instant, the instants of every leg of its order (a late leg can re-pair legs stored
 * long before) and the former instant and order of a record whose content changed
 * (record_revision) are the instants a changed pairing can move a point from or to.
 */
const CHANGED_INSTANTS = `
  WITH touched AS (
    SELECT window_start, window_end FROM sync_window
     WHERE account_id = $1 AND stream = 'spot' AND updated_at >= $2
  ),
  stored AS (
    SELECT s.ts, s.biz_order_id FROM touched w
      JOIN spot_record s ON s.account_id = $1 AND s.ts >= w.window_start AND s.ts < w.window_end
  ),
  revised AS (
    SELECT timestamptz 'epoch' + (old_raw->>'ts')::bigint * interval '1 millisecond' AS ts,
           coalesce(old_raw->>'bizOrderId', '') AS biz_order_id
      FROM record_revision
     WHERE account_id = $1 AND stream = 'spot' AND replaced_at >= $2 AND old_raw->>'ts' ~ '^[0-9]{1,15}$'
  ),
  orders AS (
    SELECT biz_order_id FROM stored WHERE biz_order_id <> ''
    UNION SELECT biz_order_id FROM revised WHERE biz_order_id <> ''
  )
  SELECT DISTINCT (extract(epoch FROM ts) * 1000)::bigint::text AS ms FROM (
    SELECT ts FROM stored
    UNION ALL SELECT ts FROM revised
    -- Per order, by the (account, bizOrderId) index. A join (or an IN) over the orders is planned as a
    -- hash join over every record of the account, as the planner cannot count the orders; OFFSET 0
    -- keeps the lateral subquery a per-order probe.
    UNION ALL SELECT legs.ts FROM orders
      CROSS JOIN LATERAL (SELECT s.ts FROM spot_record s
                           WHERE s.account_id = $1 AND s.biz_order_id = orders.biz_order_id OFFSET 0) AS legs
  ) AS changed`;

const AT_INSTANTS = `time = ANY(ARRAY(SELECT timestamptz 'epoch' + ms * interval '1 millisecond' FROM unnest($3::bigint[]) AS ms))`;

/**
 * The incremental refresh: recomputes the account's trade points at the instants that a record
 * stored since `since` can have changed, and writes only the difference: points new there
 * inserted, points whose price moved updated, points no trade implies any more deleted; an
 * unchanged point is neither written nor locked. Each instant's points come out of the same
 * statement as a full refresh's (tradePointsQuery), so the table ends as a full refresh leaves it.
 * Runs in the caller's transaction.
 */
export async function refreshTradePricesSince(
  db: pg.ClientBase,
  accountId: string,
  since: Date,
): Promise<RefreshTradePricesResult> {
  // The planner cannot count the night's windows and orders, so it costs these statements as if they
  // read much of the history and, past jit_above_cost, compiles them: ~1-2 s of CPU at 400k records for
  // statements that run in milliseconds. This transaction's statements are not analytic ones.
  await db.query('SET LOCAL jit = off');
  const found = await db.query<{ ms: string }>(CHANGED_INSTANTS, [accountId, since]);
  const instants = found.rows.map((r) => r.ms);
  if (instants.length === 0) return { inserted: 0, updated: 0, unchanged: 0, removed: 0 };

  const query = tradePointsQuery(accountId, instants);
  const implied = await db.query<TradePointRow>(query.text, query.values);
  const wanted = new Map<string, { ms: string; base: string; quote: string; price: Decimal }>();
  for (const row of implied.rows) {
    wanted.set(`${row.ms}|${row.base}|${row.quote}`, {
      ms: row.ms,
      base: row.base,
      quote: row.quote,
      price: roundedQuotient(row.quote_amount, row.base_amount),
    });
  }
  const stored = await db.query<{ id: string; key: string; price: string }>(
    `SELECT id::text, (extract(epoch FROM time) * 1000)::bigint::text || '|' || base || '|' || quote AS key, price::text
       FROM price WHERE account_id = $1::uuid AND source = $2 AND ${AT_INSTANTS}`,
    [accountId, TRADE_SOURCE, instants],
  );

  const stale: string[] = [];
  const changed: { id: string; price: string }[] = [];
  let unchanged = 0;
  for (const row of stored.rows) {
    const point = wanted.get(row.key);
    if (!point) stale.push(row.id);
    else if (!point.price.eq(row.price)) changed.push({ id: row.id, price: point.price.toFixed() });
    else unchanged += 1;
    wanted.delete(row.key);
  }
  const fresh = [...wanted.values()];
  if (stale.length > 0) await db.query(`DELETE FROM price WHERE id = ANY($1::bigint[])`, [stale]);
  if (changed.length > 0) {
    await db.query(
      `UPDATE price SET price = c.price FROM unnest($1::bigint[], $2::numeric[]) AS c(id, price) WHERE price.id = c.id`,
      [changed.map((c) => c.id), changed.map((c) => c.price)],
    );
  }
  if (fresh.length > 0) {
    await db.query(
      `INSERT INTO price (time, base, quote, price, source, account_id)
       SELECT timestamptz 'epoch' + ms * interval '1 millisecond', base, quote, price, $5, $6::uuid
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::numeric[]) AS t(ms, base, quote, price)`,
      [
        fresh.map((f) => f.ms),
        fresh.map((f) => f.base),
        fresh.map((f) => f.quote),
        fresh.map((f) => f.price.toFixed()),
        TRADE_SOURCE,
        accountId,
      ],
    );
  }
  return { inserted: fresh.length, updated: changed.length, unchanged, removed: stale.length };
}
