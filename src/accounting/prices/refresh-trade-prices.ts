import type pg from 'pg';

import { ledgerEntriesCte } from '../../booking/ledger-entries.ts';
import { SqlParams } from '../../booking/sql-params.ts';
import { ValidationError } from '../../errors/index.ts';
import { PREFERRED_QUOTES } from './latest-prices.ts';
import { roundedQuotient } from './price-arithmetic.ts';
import { TRADE_SOURCE } from './price-point.ts';

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

/** The whole stored history: trades are paired wherever their legs lie (ledger-entries.ts). */
const WHOLE_HISTORY = { start: new Date('1970-01-01T00:00:00Z'), end: new Date('9999-12-31T00:00:00Z') };
/** Marks an entry whose sent amount includes the given side's fee (ledger-entries.ts, both sides with a fee). */
const SENT_INCLUDES_FEE = '% (sent includes its fee %';
const BATCH = 2_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
 * When it runs: after each nightly sync of an account (src/app/services/after-sync.ts, before the monthly
 * exports), and by `ledgerline prices refresh`. Reports read the table as it stands.
 */
export async function refreshTradePrices(db: pg.ClientBase, accountId: string): Promise<RefreshTradePricesResult> {
  if (!UUID.test(accountId)) throw new ValidationError('accountId', 'must be a UUID', accountId);
  const p = new SqlParams();
  const cte = ledgerEntriesCte(p, { accountId, period: WHOLE_HISTORY });
  const quotes = p.add(PREFERRED_QUOTES, 'text[]');
  const rank = (coin: string) => `coalesce(array_position(${quotes}, ${coin}), 1000)`;
  // The quote: the better-ranked coin; at a tie (neither listed) the alphabetically later one.
  const receivedIsQuote = `(${rank('received_coin')} < ${rank('sent_coin')}
      OR (${rank('received_coin')} = ${rank('sent_coin')} AND received_coin > sent_coin))`;
  const text = `${cte},
    oriented AS (
      SELECT ts,
             upper(CASE WHEN ${receivedIsQuote} THEN sent_coin ELSE received_coin END) AS base,
             upper(CASE WHEN ${receivedIsQuote} THEN received_coin ELSE sent_coin END) AS quote,
             CASE WHEN ${receivedIsQuote} THEN sent_amount ELSE received_amount END AS base_amount,
             CASE WHEN ${receivedIsQuote} THEN received_amount ELSE sent_amount END AS quote_amount
      FROM entries
      WHERE category = 'trade' AND flag IS NULL AND sent_coin IS NOT NULL AND received_coin IS NOT NULL
        AND sent_amount > 0 AND received_amount > 0 AND spot_types NOT LIKE ${p.add(SENT_INCLUDES_FEE)}
    )
    SELECT (extract(epoch FROM ts) * 1000)::bigint::text AS ms, base, quote,
           sum(base_amount)::text AS base_amount, sum(quote_amount)::text AS quote_amount
    FROM oriented
    GROUP BY ts, base, quote
    ORDER BY ts, base, quote`;

  let inserted = 0;
  let updated = 0;
  let seen = 0;
  let removed: number;
  await db.query('BEGIN');
  try {
    await db.query(
      // Keyed: the price rows written in this transaction have no statistics yet, so the planner
      // takes them for one row and tests each against the keys in a nested loop; without an index
      // on the keys that loop is quadratic (5 s at 16,000 points, 135 s at 80,000).
      `CREATE TEMP TABLE trade_price_keys (time timestamptz(3), base text, quote text, PRIMARY KEY (time, base, quote))
       ON COMMIT DROP`,
    );
    await db.query(`DECLARE trade_prices NO SCROLL CURSOR FOR ${text}`, p.values);
    for (;;) {
      const { rows } = await db.query<TradeRow>(`FETCH ${BATCH} FROM trade_prices`);
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
    removed = stale.rowCount ?? 0;
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return { inserted, updated, unchanged: seen - inserted - updated, removed };
}

interface TradeRow {
  ms: string;
  base: string;
  quote: string;
  base_amount: string;
  quote_amount: string;
}

async function upsert(
  db: pg.ClientBase,
  accountId: string,
  rows: TradeRow[],
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
