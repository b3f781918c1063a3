import { Decimal } from 'decimal.js';
import type pg from 'pg';

import type { TaxYear } from '../../accounting/gains/tax-years.ts';
import { plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { PriceBook } from '../../accounting/prices/price-book.ts';
import { FUTURES_BOOKINGS, type FuturesLedgerCategory } from '../../booking/futures-bookings.ts';
import { emptyFuturesValue, type FuturesValue, futuresValues } from './futures-values.ts';

/**
 * One tax year's futures results in one margin coin, from the futures ledger (future-record,
 * docs/exchange-api.md §5.7), which keeps every record of the year where history-position keeps
 * three months. Amounts are in the margin coin, signed as the exchange signs them (a loss, a fee,
 * funding paid: negative):
 * - `realizedPnl`: the `amount` of the realized-pnl and liquidation records (a position's close);
 * - `fees`: every record's `fee` (an open's, a close's) and the `amount` of the fee records;
 * - `funding`: the `amount` of the funding settlements;
 * - `other`: the `amount` of the other records (and of types the mapping does not know: `unmapped`).
 * Transfers between spot and futures are money moved, not a result: left out.
 */
export interface FuturesResult {
  readonly marginCoin: string;
  records: number;
  closes: number;
  realizedPnl: Decimal;
  fees: Decimal;
  funding: Decimal;
  other: Decimal;
  /** Records of a futureTaxType outside the documented list (their amounts are in `other`). */
  unmapped: number;
  /** The same results in the summary's currency (futures-values.ts), when a price book was given. */
  value?: FuturesValue;
}

export function futuresNet(r: FuturesResult): Decimal {
  return plus(plus(r.realizedPnl, r.fees), plus(r.funding, r.other));
}

const categoryOf = (type: string): FuturesLedgerCategory =>
  (FUTURES_BOOKINGS as Readonly<Record<string, FuturesLedgerCategory>>)[type] ?? 'unmapped';

/**
 * The futures results of the account per margin coin over [fromMs, toMs) (the part of a tax year
 * the period holds), summed exactly by Postgres per futureTaxType and added up here by category.
 * Optional `coin`: one margin coin only.
 */
export async function futuresResults(
  db: pg.ClientBase,
  accountId: string,
  fromMs: number,
  toMs: number,
  coin?: string,
): Promise<FuturesResult[]> {
  const values: unknown[] = [accountId, new Date(fromMs).toISOString(), new Date(toMs).toISOString()];
  if (coin !== undefined) values.push(coin);
  const { rows } = await db.query<{ margin_coin: string; type: string; records: string; amount: string; fee: string }>(
    `SELECT margin_coin, future_tax_type AS type, count(*)::text AS records,
        sum(amount)::text AS amount, sum(fee)::text AS fee
      FROM futures_ledger_record
      WHERE account_id = $1::uuid AND ts >= $2::timestamptz AND ts < $3::timestamptz
        ${coin !== undefined ? 'AND margin_coin = $4' : ''}
      GROUP BY margin_coin, future_tax_type
      ORDER BY convert_to(margin_coin, 'UTF8'), convert_to(future_tax_type, 'UTF8')`,
    values,
  );
  const byCoin = new Map<string, FuturesResult>();
  for (const row of rows) {
    const category = categoryOf(row.type);
    if (category === 'transfer') continue;
    let r = byCoin.get(row.margin_coin);
    if (r === undefined) {
      r = {
        marginCoin: row.margin_coin,
        records: 0,
        closes: 0,
        realizedPnl: ZERO,
        fees: ZERO,
        funding: ZERO,
        other: ZERO,
        unmapped: 0,
      };
      byCoin.set(row.margin_coin, r);
    }
    const count = Number(row.records);
    const amount = new Decimal(row.amount);
    r.records += count;
    r.fees = plus(r.fees, new Decimal(row.fee));
    if (category === 'realized-pnl' || category === 'liquidation') {
      r.closes += count;
      r.realizedPnl = plus(r.realizedPnl, amount);
    } else if (category === 'fee') r.fees = plus(r.fees, amount);
    else if (category === 'funding') r.funding = plus(r.funding, amount);
    else {
      r.other = plus(r.other, amount);
      if (category === 'unmapped') r.unmapped += count;
    }
  }
  return [...byCoin.values()];
}

/**
 * The futures results of each tax year: the part of it the period holds; with `book`, each
 * margin coin's results valued in the book's currency too (futures-values.ts).
 */
export async function futuresResultsByYear(
  db: pg.ClientBase,
  accountId: string,
  years: readonly TaxYear[],
  period: { start: Date; end: Date },
  coin?: string,
  book?: PriceBook,
): Promise<Map<string, FuturesResult[]>> {
  const out = new Map<string, FuturesResult[]>();
  for (const year of years) {
    const from = Math.max(year.startMs, period.start.getTime());
    const to = Math.min(year.endMs, period.end.getTime());
    const results = await futuresResults(db, accountId, from, to, coin);
    if (book !== undefined) {
      const values = await futuresValues(db, book, accountId, from, to, coin);
      for (const r of results) r.value = values.get(r.marginCoin) ?? emptyFuturesValue();
    }
    out.set(year.label, results);
  }
  return out;
}
