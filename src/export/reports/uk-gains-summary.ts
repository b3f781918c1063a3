import type { Decimal } from 'decimal.js';

import { ukTaxYear } from '../../accounting/gains/uk-day.ts';
import type { UkMatch } from '../../accounting/gains/uk-matching.ts';
import { minus, plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { lotSettings, type OpenBook, openStoredBook, ukGainsEvents } from './gains-source.ts';
import { UNPRICED } from './realized-gains.ts';
import {
  addReviewCounts,
  countPart,
  emptyReviewCounts,
  REVIEW_COUNT_COLUMNS,
  reviewCells,
  type ReviewCounts,
} from './review-counts.ts';

interface Totals {
  disposals: number;
  proceeds: Decimal;
  costs: Decimal;
  gains: Decimal;
  /** Positive: the sum of the disposals that made a loss, as HMRC's returns ask for it. */
  losses: Decimal;
  unpriced: number;
  /** Unknown costs and parts beyond the holdings, beside the sums (review-counts.ts). */
  review: ReviewCounts;
}

const empty = (): Totals => ({
  disposals: 0,
  proceeds: ZERO,
  costs: ZERO,
  gains: ZERO,
  losses: ZERO,
  unpriced: 0,
  review: emptyReviewCounts(),
});

/** One disposal (a token's disposals of one London day): its parts' sums. */
interface Disposal {
  key: string;
  taxYear: string;
  coin: string;
  proceeds: Decimal;
  costs: Decimal;
  unpriced: boolean;
  review: ReviewCounts;
}

function add(totals: Totals, d: Disposal): void {
  addReviewCounts(totals.review, d.review);
  totals.disposals++;
  if (d.unpriced) {
    totals.unpriced++;
    return;
  }
  totals.proceeds = plus(totals.proceeds, d.proceeds);
  totals.costs = plus(totals.costs, d.costs);
  const net = minus(d.proceeds, d.costs);
  if (net.isNegative()) totals.losses = minus(totals.losses, net);
  else totals.gains = plus(totals.gains, net);
}

function row(level: string, taxYear: string, coin: string, t: Totals, currency: string): ReportRow {
  return {
    cells: [
      level,
      taxYear,
      coin,
      String(t.disposals),
      plain(t.proceeds),
      plain(t.costs),
      plain(t.gains),
      plain(t.losses),
      plain(minus(t.gains, t.losses)),
      String(t.unpriced),
      'uk',
      currency,
      ...reviewCells(t.review, level === 'coin'),
    ],
    flag: t.unpriced > 0 ? UNPRICED : null,
  };
}

/**
 * realized-gains-summary under `--method uk`: per UK tax year and token, then per tax year: the
 * number of disposals (a token's disposals of one day are one), proceeds, allowable costs, the sum
 * of the gains and of the losses (each disposal's net, as the Capital Gains summary pages ask for
 * them) and the net. Exact sums of the realized-gains rows; unpriced disposals are counted, not summed.
 */
export function ukGainsSummaryReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains-summary',
    title: 'Realized gains summary (UK tax years)',
    description:
      'per UK tax year (6 April to 5 April) and token: disposals, proceeds, allowable costs, gains, losses and net gain under HMRC’s share matching, then per tax year',
    streams: ['spot'],
    coverage: 'history',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    columns: [
      text('level'),
      text('tax_year'),
      text('coin'),
      decimal('disposals'),
      decimal('proceeds'),
      decimal('allowable_costs'),
      decimal('gains'),
      decimal('losses'),
      decimal('net_gain'),
      decimal('unpriced_disposals'),
      text('method'),
      text('valuation_currency'),
      ...REVIEW_COUNT_COLUMNS,
    ],
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      const byYear = new Map<string, Map<string, Totals>>();
      let current: Disposal | undefined;
      const withdrawn: UkMatch[] = [];
      const close = () => {
        if (current === undefined) return;
        let coins = byYear.get(current.taxYear);
        if (coins === undefined) byYear.set(current.taxYear, (coins = new Map()));
        let totals = coins.get(current.coin);
        if (totals === undefined) coins.set(current.coin, (totals = empty()));
        add(totals, current);
        current = undefined;
      };
      for await (const event of ukGainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        const m: UkMatch = event.match;
        if (params.coin !== undefined && m.coin !== params.coin) continue;
        if (m.rule === 'withdrawal-beyond-holdings') {
          // Nothing realized: counted beside the sums of its tax year and token only.
          withdrawn.push(m);
          continue;
        }
        const key = `${m.disposedOn} ${m.coin}`;
        if (current?.key !== key) {
          close();
          current = {
            key,
            taxYear: ukTaxYear(m.disposedAtMs),
            coin: m.coin,
            proceeds: ZERO,
            costs: ZERO,
            unpriced: false,
            review: emptyReviewCounts(),
          };
        }
        countPart(current.review, {
          ...m,
          unknownCost: m.unknownCost === true,
          beyondHoldings: m.rule === 'beyond-holdings',
          withdrawal: false,
        });
        if (m.proceeds === null || m.cost === null) current.unpriced = true;
        else {
          current.proceeds = plus(current.proceeds, m.proceeds);
          current.costs = plus(current.costs, m.cost);
        }
      }
      close();
      for (const m of withdrawn) {
        const taxYear = ukTaxYear(m.disposedAtMs);
        let coins = byYear.get(taxYear);
        if (coins === undefined) byYear.set(taxYear, (coins = new Map()));
        let totals = coins.get(m.coin);
        if (totals === undefined) coins.set(m.coin, (totals = empty()));
        countPart(totals.review, { ...m, unknownCost: false, beyondHoldings: true, withdrawal: true });
      }
      for (const year of [...byYear.keys()].sort()) {
        const coins = byYear.get(year)!;
        const total = empty();
        for (const coin of [...coins.keys()].sort()) {
          const t = coins.get(coin)!;
          yield row('coin', year, coin, t, settings.currency);
          total.disposals += t.disposals;
          total.unpriced += t.unpriced;
          total.proceeds = plus(total.proceeds, t.proceeds);
          total.costs = plus(total.costs, t.costs);
          total.gains = plus(total.gains, t.gains);
          total.losses = plus(total.losses, t.losses);
          addReviewCounts(total.review, t.review);
        }
        yield row('total', year, '', total, settings.currency);
      }
    },
  };
}

export const ukGainsSummaryReport = ukGainsSummaryReportWith(openStoredBook);
