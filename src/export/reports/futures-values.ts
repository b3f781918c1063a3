import { Decimal } from 'decimal.js';
import type pg from 'pg';

import { money, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { PriceBook } from '../../accounting/prices/price-book.ts';
import { FUTURES_BOOKINGS, type FuturesLedgerCategory } from '../../booking/futures-bookings.ts';

/**
 * One tax year's futures results in one margin coin, valued in the summary's currency (GBP under
 * `uk`, EUR under `de`) record by record at the record's own instant, by the price book every
 * other value of the summary comes from (docs/reports.md, "Which day a rate values": a daily rate
 * imported in the London or Berlin zone values that date's records). A record whose parts have
 * no price within the tolerance is `unpriced`: counted, in no sum, never guessed.
 */
export interface FuturesValue {
  realizedPnl: Decimal;
  fees: Decimal;
  funding: Decimal;
  other: Decimal;
  /** Records left out of the values: no price for the margin coin at their instant. */
  unpriced: number;
}

export function futuresValueNet(v: FuturesValue): Decimal {
  return plus(plus(v.realizedPnl, v.fees), plus(v.funding, v.other));
}

export const emptyFuturesValue = (): FuturesValue => ({
  realizedPnl: ZERO,
  fees: ZERO,
  funding: ZERO,
  other: ZERO,
  unpriced: 0,
});

const categoryOf = (type: string): FuturesLedgerCategory =>
  (FUTURES_BOOKINGS as Readonly<Record<string, FuturesLedgerCategory>>)[type] ?? 'unmapped';

/** Records per round trip: the most held at once (keyset pages, so the book can query between them). */
const PAGE_SIZE = 2_000;

interface RecordRow {
  record_id: string;
  ms: string;
  margin_coin: string;
  type: string;
  amount: string;
  fee: string;
}

const PAGE = `
  SELECT record_id, (extract(epoch FROM ts) * 1000)::bigint::text AS ms, margin_coin,
         future_tax_type AS type, amount::text AS amount, fee::text AS fee
    FROM futures_ledger_record
   WHERE account_id = $1::uuid AND ts < $3::timestamptz
     AND (ts, record_id) > ($2::timestamptz, $4::text)
     AND ($5::text IS NULL OR margin_coin = $5)
   ORDER BY ts, record_id
   LIMIT ${PAGE_SIZE}`;

/** A record's amounts split as futures-results.ts splits them (transfers: none). */
function parts(row: RecordRow): Array<[keyof Omit<FuturesValue, 'unpriced'>, Decimal]> {
  const category = categoryOf(row.type);
  if (category === 'transfer') return [];
  const amount = new Decimal(row.amount);
  const out: Array<[keyof Omit<FuturesValue, 'unpriced'>, Decimal]> = [['fees', new Decimal(row.fee)]];
  if (category === 'realized-pnl' || category === 'liquidation') out.push(['realizedPnl', amount]);
  else if (category === 'fee') out.push(['fees', amount]);
  else if (category === 'funding') out.push(['funding', amount]);
  else out.push(['other', amount]);
  return out.filter(([, value]) => !value.isZero());
}

/**
 * The futures results of [fromMs, toMs) per margin coin, valued by `book` (called in time order:
 * the records are read by ts). Each part is valued at MONEY_PLACES, as the walk values a market
 * value; the sums are exact.
 */
export async function futuresValues(
  db: pg.ClientBase,
  book: PriceBook,
  accountId: string,
  fromMs: number,
  toMs: number,
  coin?: string,
): Promise<Map<string, FuturesValue>> {
  const out = new Map<string, FuturesValue>();
  // The keyset starts just before fromMs: every record at fromMs itself is read ('' sorts first).
  let lastTs = new Date(fromMs).toISOString();
  let lastId = '';
  for (;;) {
    const { rows } = await db.query<RecordRow>(PAGE, [
      accountId,
      lastTs,
      new Date(toMs).toISOString(),
      lastId,
      coin ?? null,
    ]);
    for (const row of rows) {
      const split = parts(row);
      if (split.length === 0) continue;
      let v = out.get(row.margin_coin);
      if (v === undefined) out.set(row.margin_coin, (v = emptyFuturesValue()));
      const at = new Date(Number(row.ms));
      const valued: Array<[keyof Omit<FuturesValue, 'unpriced'>, Decimal]> = [];
      for (const [part, quantity] of split) {
        const valuation = await book.value(row.margin_coin, quantity, at);
        if (valuation === null) break;
        valued.push([part, money(valuation.value)]);
      }
      if (valued.length < split.length) {
        v.unpriced++;
        continue;
      }
      for (const [part, value] of valued) v[part] = plus(v[part], value);
    }
    if (rows.length < PAGE_SIZE) return out;
    const last = rows.at(-1)!;
    lastTs = new Date(Number(last.ms)).toISOString();
    lastId = last.record_id;
  }
}
