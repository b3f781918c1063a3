import type { Decimal } from 'decimal.js';

import { belowFreigrenze, deYear, privateSalesFreigrenze } from '../../accounting/gains/de-private-sales.ts';
import { minus, plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { deTaxable } from './de-gains.ts';
import { gainsEvents, lotSettings, type OpenBook, openStoredBook } from './gains-source.ts';
import { reportedCostBasis, UNPRICED } from './realized-gains.ts';
import {
  addReviewCounts,
  countPart,
  emptyReviewCounts,
  REVIEW_COUNT_COLUMNS,
  reviewCells,
  type ReviewCounts,
} from './review-counts.ts';

interface Totals {
  /** Net gain of the taxable sales (held one year or less). */
  taxable: Decimal;
  /** Net gain of the sales held more than one year (not taxable). */
  taxFree: Decimal;
  matches: number;
  unpriced: number;
  /** Unknown costs and parts beyond the holdings, beside the sums (review-counts.ts). */
  review: ReviewCounts;
}

const empty = (): Totals => ({ taxable: ZERO, taxFree: ZERO, matches: 0, unpriced: 0, review: emptyReviewCounts() });

function row(level: string, year: number, coin: string, t: Totals, currency: string): ReportRow {
  const limit = privateSalesFreigrenze(year);
  const below = belowFreigrenze(t.taxable, limit);
  const total = level === 'total';
  return {
    cells: [
      level,
      String(year),
      coin,
      String(t.matches),
      plain(t.taxable),
      plain(t.taxFree),
      total ? String(limit) : null,
      total ? (below ? 'yes' : 'no') : null,
      // Under the limit nothing is taxable; reaching it, all of it is (a Freigrenze, not an allowance).
      total ? plain(below ? ZERO : t.taxable) : null,
      String(t.unpriced),
      'de',
      currency,
      ...reviewCells(t.review, !total),
    ],
    flag: t.unpriced > 0 ? UNPRICED : null,
  };
}

/**
 * realized-gains-summary under `--method de`: per calendar year and coin the net gain of the
 * taxable private sales and of the tax-free ones (held over a year); per year the total with the
 * Freigrenze of section 23 (3) EStG (EUR 600 up to 2023, EUR 1,000 from 2024) and what stays
 * taxable. A negative year is a loss for the accountant to carry (section 23 (3) sentences 7-8):
 * the report shows it and decides nothing about it.
 */
export function deGainsSummaryReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains-summary',
    title: 'Realized gains summary (German private sales)',
    description:
      'per calendar year and coin: net gain of taxable private sales (held one year or less) and of tax-free ones, then per year the Freigrenze (EUR 600 to 2023, EUR 1,000 from 2024) and the taxable amount',
    streams: ['spot'],
    coverage: 'history',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    columns: [
      text('level'),
      text('year'),
      text('coin'),
      decimal('matches'),
      decimal('taxable_gain'),
      decimal('tax_free_gain'),
      decimal('freigrenze'),
      text('below_freigrenze'),
      decimal('taxable_amount'),
      decimal('unpriced_matches'),
      text('method'),
      text('valuation_currency'),
      ...REVIEW_COUNT_COLUMNS,
    ],
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      const byYear = new Map<number, Map<string, Totals>>();
      for await (const event of gainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        const match = event.match;
        if (params.coin !== undefined && match.coin !== params.coin) continue;
        const year = deYear(match.disposedAtMs);
        let coins = byYear.get(year);
        if (coins === undefined) byYear.set(year, (coins = new Map()));
        let totals = coins.get(match.coin);
        if (totals === undefined) coins.set(match.coin, (totals = empty()));
        countPart(totals.review, {
          ...match,
          unknownCost: match.unknownCost === true,
          withdrawal: match.withdrawal === true,
        });
        // A withdrawal beyond the holdings realizes nothing: counted beside the sums only.
        if (match.withdrawal === true) continue;
        totals.matches++;
        const cost = reportedCostBasis(match);
        if (match.proceeds === null || cost === null) {
          totals.unpriced++;
          continue;
        }
        const gain = minus(match.proceeds, cost);
        if (deTaxable(match)) totals.taxable = plus(totals.taxable, gain);
        else totals.taxFree = plus(totals.taxFree, gain);
      }
      for (const year of [...byYear.keys()].sort((a, b) => a - b)) {
        const coins = byYear.get(year)!;
        const total = empty();
        for (const coin of [...coins.keys()].sort()) {
          const t = coins.get(coin)!;
          yield row('coin', year, coin, t, settings.currency);
          total.matches += t.matches;
          total.unpriced += t.unpriced;
          addReviewCounts(total.review, t.review);
          total.taxable = plus(total.taxable, t.taxable);
          total.taxFree = plus(total.taxFree, t.taxFree);
        }
        yield row('total', year, '', total, settings.currency);
      }
    },
  };
}

export const deGainsSummaryReport = deGainsSummaryReportWith(openStoredBook);
