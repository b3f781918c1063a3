import { Decimal } from 'decimal.js';

import { coinBalances } from '../../accounting/balances/coin-balances.ts';
import { DEFAULT_TOLERANCE_MS } from '../../accounting/prices/memory-price-book.ts';
import { openPriceBook } from '../../accounting/prices/open-price-book.ts';
import type { PriceBook } from '../../accounting/prices/price-book.ts';
import type { ComputedReportDefinition, ReportParams } from '../report-definition.ts';
import { decimal, REVIEW_PREFIX, text } from '../report-definition.ts';

/** The valuation currency when the installation names none (config VALUATION_CURRENCY). */
const DEFAULT_VALUATION_CURRENCY = 'USDT';
/** The flag of a coin whose closing balance has no price within the tolerance: left empty, listed. */
export const UNPRICED = `${REVIEW_PREFIX}unpriced`;
/**
 * The flag of a coin with no stored record before the period (the history starts after the
 * account's): its opening balance is the one before its first stored record, `balance` less its
 * amount and fee, counted in the manifest's review so the file says where it came from.
 */
export const OPENING_FROM_FIRST_RECORD = `${REVIEW_PREFIX}opening-from-first-record`;

/**
 * One row per coin: opening balance, the period's inflows, outflows and fees, closing balance,
 * with the ledger's signs (outflows and fees negative), so opening + inflows + outflows + fees =
 * closing exactly; the closing balance is checked against the exchange's own (the export fails
 * naming the coin when they differ). The breakdown columns split inflows and outflows by category:
 * inflows = trades_in + deposits + income + other_in, outflows = trades_out + withdrawals + other_out.
 * Last, the closing balance valued in the valuation currency at the period's last instant (the
 * price table: nearest earlier point within PRICE_TOLERANCE); without a price the value is empty
 * and the row counted in the manifest's review as `unpriced`, never guessed.
 */
export const balancesReport: ComputedReportDefinition = {
  name: 'balances',
  title: 'Balances',
  description:
    "opening and closing balance per coin with the period's inflows, outflows and fees; the closing balance ties to the exchange's",
  streams: ['spot'],
  accepts: { coin: true, includePending: false, valuation: true },
  columns: [
    text('coin'),
    decimal('opening_balance'),
    decimal('inflows'),
    decimal('outflows'),
    decimal('fees'),
    decimal('closing_balance'),
    text('records'),
    decimal('trades_in'),
    decimal('trades_out'),
    decimal('deposits'),
    decimal('withdrawals'),
    decimal('income'),
    decimal('other_in'),
    decimal('other_out'),
    text('valuation_currency'),
    decimal('closing_value'),
    decimal('price'),
    text('price_time_utc'),
    text('price_source'),
  ],
  kind: 'computed',
  async *rows(params, db) {
    const options = { accountId: params.accountId, start: params.period.start, end: params.period.end };
    const balances = [];
    for await (const b of coinBalances(db, { ...options, coin: params.coin })) balances.push(b);
    const book = await openBook(params, db);
    // The last instant of the period: a price stamped at its end belongs to the next one.
    const at = new Date(params.period.end.getTime() - 1);
    try {
      for (const b of balances) {
        const quantity = new Decimal(b.closing);
        // Nothing held is worth nothing, priced or not.
        const valued = quantity.isZero() ? undefined : await book.value(b.coin, quantity, at);
        const value = valued
          ? [valued.value.toFixed(), valued.price.toFixed(), valued.priceAt.toISOString(), valued.source]
          : [valued === undefined ? '0' : null, null, null, null];
        yield {
          cells: [
            b.coin,
            b.opening,
            b.inflows,
            b.outflows,
            b.fees,
            b.closing,
            b.records,
            b.tradesIn,
            b.tradesOut,
            b.deposits,
            b.withdrawals,
            b.income,
            b.otherIn,
            b.otherOut,
            book.currency,
            ...value,
          ],
          flag: reviewFlag(valued === null, b.openingFromFirstRecord),
        };
      }
    } finally {
      await book.close();
    }
  },
};

/** The row's review flag: unpriced, opening from the first record, both (`unpriced,opening-...`) or none. */
function reviewFlag(unpriced: boolean, openingFromFirstRecord: boolean): string | null {
  if (unpriced && openingFromFirstRecord) return `${UNPRICED},${OPENING_FROM_FIRST_RECORD.slice(REVIEW_PREFIX.length)}`;
  if (unpriced) return UNPRICED;
  return openingFromFirstRecord ? OPENING_FROM_FIRST_RECORD : null;
}

function openBook(params: ReportParams, db: Parameters<typeof openPriceBook>[0]): Promise<PriceBook> {
  return openPriceBook(db, {
    accountId: params.accountId,
    currency: params.valuationCurrency ?? DEFAULT_VALUATION_CURRENCY,
    toleranceMs: params.priceToleranceMs ?? DEFAULT_TOLERANCE_MS,
  });
}
