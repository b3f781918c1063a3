import type pg from 'pg';

import { ValidationError } from '../../errors/index.ts';
import { roundedQuotient } from './price-arithmetic.ts';
import { TRADE_SOURCE } from './price-point.ts';
import { refreshTradePricesSince } from './refresh-trade-prices-since.ts';
import { type TradePointRow, tradePointsQuery } from './trade-points-query.ts';

export interface RefreshTradePricesResult {
  /** Price points written for the first time. */
  readonly inserted: number;
  /** Points already there whose price changed (a fill added to an instant, say). */
  readonly updated: number;
  /** Points already there with the same price: nothing written. */
  readonly unchanged: number;
  /** Points of the account no trade implies any more (the pairing of an order changed): deleted. */
  readonly removed: number;
}

const BATCH = 2_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * The watermark a refresh leaves: its own start, or the start of the oldest transaction of another
 * session then open in the database, if earlier. A page stamps its window with its transaction's
 * start (`now()`), and one open while this refresh reads may commit after it: so every page this
 * refresh may not have seen is stamped at or after the watermark, and the next refresh reads it.
 */
const WATERMARK = `SELECT least(now(), (SELECT min(xact_start) FROM pg_stat_activity
                                           WHERE datname = current_database() AND pid <> pg_backend_pid()))`;
/** The watermark of an account never refreshed: its first refresh is a full one. */
const NEVER = new Date(0);

export interface RefreshTradePricesOptions {
  /** Re-pair the whole history and compare every point (`prices refresh --full`), not only what changed since the last refresh. */
  full?: boolean;
}

/**
 * The prices implied by the account's own trades, as `trade` points of the `price` table.
 *
 * - Trades are the paired entries of ledger-entries.ts (one per fill, or per order when one side is
 *   a single leg), over the account's whole history: the same pairing as every trade report.
 * - Gross amounts: a fill's price is received / sent before fees (the exchange's amounts are gross,
 *   its fee is a separate field). An entry whose both sides carry a fee states its sent amount fee
 *   included, so it gives no point rather than a price off by the fee.
 * - Orientation: one point per pair, base/quote with the quote the coin earlier in PREFERRED_QUOTES
 *   (USDT, USD, USDC, EUR, BTC, ETH); neither listed: base and quote in alphabetical order. So a
 *   BTC->USDT sale and a USDT->BTC purchase both give BTC/USDT, whichever way the coins went.
 * - Several fills of one pair in the same millisecond give one point: their amounts summed, the
 *   volume-weighted price. A quotient is rounded to 28 significant digits, half to even.
 *
 * Idempotent: an upsert on (account_id, base, quote, time, source) that rewrites only a changed
 * price; run it again and nothing changes. The account's `trade` points that no trade implies any
 * more (an order whose legs arrived late pairs differently) are deleted, so the table always holds
 * exactly what the stored trades imply. One transaction (DECLARE/FETCH, batches of 2,000; the
 * keys written are kept in a temporary table), so memory stays flat and a failure leaves the
 * table as it was. `db` must not be in a transaction.
 *
 * Incremental after the first: the account's watermark (trade_price_refresh) is when its last
 * refresh started, and the next re-pairs only the orders with a leg at an instant a spot window
 * stored since then can have changed, writing only the points that differ
 * (refresh-trade-prices-since.ts): a night costs its own news, not the history. The result is the
 * full refresh's (test/accounting/refresh-trade-prices-incremental.test.ts); `full` (`prices
 * refresh --full`) re-pairs everything, for a change of the pairing rules or records written
 * outside a window read.
 *
 * When it runs: after each nightly sync of an account (src/app/services/after-sync.ts, before the monthly
 * exports), and by `ledgerline prices refresh`. Reports read the table as it stands.
 */
export async function refreshTradePrices(
  db: pg.ClientBase,
  accountId: string,
  options: RefreshTradePricesOptions = {},
): Promise<RefreshTradePricesResult> {
  if (!UUID.test(accountId)) throw new ValidationError('accountId', 'must be a UUID', accountId);
  await db.query('BEGIN');
  try {
    // The account's watermark row, locked: two refreshes of one account take turns.
    await db.query(
      `INSERT INTO trade_price_refresh (account_id, refreshed_at) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING`,
      [accountId, NEVER],
    );
    const mark = await db.query<{ refreshedAt: Date }>(
      `SELECT refreshed_at AS "refreshedAt" FROM trade_price_refresh WHERE account_id = $1 FOR UPDATE`,
      [accountId],
    );
    const last = mark.rows[0]!.refreshedAt;
    const watermark = (await db.query<{ least: Date }>(WATERMARK)).rows[0]!.least;
    const result =
      options.full || last.getTime() === NEVER.getTime()
        ? await refreshAll(db, accountId)
        : await refreshTradePricesSince(db, accountId, last);
    await db.query(`UPDATE trade_price_refresh SET refreshed_at = $2 WHERE account_id = $1`, [accountId, watermark]);
    await db.query('COMMIT');
    return result;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The full refresh: every point of the whole history upserted, the others deleted (in the caller's transaction). */
async function refreshAll(db: pg.ClientBase, accountId: string): Promise<RefreshTradePricesResult> {
  const query = tradePointsQuery(accountId);
  let inserted = 0;
  let updated = 0;
  let seen = 0;
  await db.query(
    // Keyed: the price rows written in this transaction have no statistics yet, so the planner
    // takes them for one row and tests each against the keys in a nested loop; without an index
    // on the keys that loop is quadratic (5 s at 16,000 points, 135 s at 80,000).
    `CREATE TEMP TABLE trade_price_keys (time timestamptz(3), base text, quote text, PRIMARY KEY (time, base, quote))
     ON COMMIT DROP`,
  );
  await db.query(`DECLARE trade_prices NO SCROLL CURSOR FOR ${query.text}`, query.values);
  for (;;) {
    const { rows } = await db.query<TradePointRow>(`FETCH ${BATCH} FROM trade_prices`);
    if (rows.length === 0) break;
    seen += rows.length;
    const written = await upsert(db, accountId, rows);
    inserted += written.inserted;
    updated += written.updated;
  }
  await db.query('CLOSE trade_prices');
  const stale = await db.query(
    `DELETE FROM price p
      WHERE p.account_id = $1::uuid AND p.source = $2
        AND NOT EXISTS (SELECT 1 FROM trade_price_keys k WHERE k.time = p.time AND k.base = p.base AND k.quote = p.quote)`,
    [accountId, TRADE_SOURCE],
  );
  return { inserted, updated, unchanged: seen - inserted - updated, removed: stale.rowCount ?? 0 };
}

async function upsert(
  db: pg.ClientBase,
  accountId: string,
  rows: TradePointRow[],
): Promise<{ inserted: number; updated: number }> {
  const ms = rows.map((row) => row.ms);
  const bases = rows.map((row) => row.base);
  const quotes = rows.map((row) => row.quote);
  await db.query(
    `INSERT INTO trade_price_keys (time, base, quote)
     SELECT timestamptz 'epoch' + ms * interval '1 millisecond', base, quote
       FROM unnest($1::bigint[], $2::text[], $3::text[]) AS t(ms, base, quote)`,
    [ms, bases, quotes],
  );
  const { rows: result } = await db.query<{ inserted: boolean }>(
    `INSERT INTO price (time, base, quote, price, source, account_id)
     SELECT timestamptz 'epoch' + ms * interval '1 millisecond', base, quote, price, $5, $6::uuid
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::numeric[]) AS t(ms, base, quote, price)
     ON CONFLICT (account_id, base, quote, time, source) WHERE account_id IS NOT NULL
     DO UPDATE SET price = EXCLUDED.price WHERE price.price <> EXCLUDED.price
     RETURNING xmax = 0 AS inserted`,
    [
      ms,
      bases,
      quotes,
      rows.map((row) => roundedQuotient(row.quote_amount, row.base_amount).toFixed()),
      TRADE_SOURCE,
      accountId,
    ],
  );
  const inserted = result.filter((row) => row.inserted).length;
  return { inserted, updated: result.length - inserted };
}
