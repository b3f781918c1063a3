import type { Decimal } from 'decimal.js';

import { minus, plain, plus, ZERO } from '../../accounting/lots/lot-arithmetic.ts';
import type { LotMatch } from '../../accounting/lots/lot-engine.ts';
import type { ComputedReportDefinition, ReportRow } from '../report-definition.ts';
import { decimal, text } from '../report-definition.ts';
import { coinsAwayRows } from './coins-away-rows.ts';
import {
  GAINS_WALK_STREAMS,
  gainsEvents,
  type LotSettings,
  lotSettings,
  type OpenBook,
  openStoredBook,
} from './gains-source.ts';
import { holdingDays, reportedCostBasis, termOf, UNPRICED } from './realized-gains.ts';
import { countPart, emptyReviewCounts, REVIEW_COUNT_COLUMNS, reviewCells, type ReviewCounts } from './review-counts.ts';

/** `unknown`: the part of a disposal beyond the holdings, which has no acquisition date. */
const TERMS = ['short', 'long', 'unknown'] as const;
type Term = (typeof TERMS)[number];

interface Totals {
  matches: number;
  quantity: Decimal;
  proceeds: Decimal;
  cost: Decimal;
  /** Matches left out of the sums: no proceeds or no cost basis. */
  unpriced: number;
  /** Unknown costs and parts beyond the holdings, beside the sums (review-counts.ts). */
  review: ReviewCounts;
}

const empty = (): Totals => ({
  matches: 0,
  quantity: ZERO,
  proceeds: ZERO,
  cost: ZERO,
  unpriced: 0,
  review: emptyReviewCounts(),
});

function termOfMatch(match: LotMatch, longTermDays: number): Term {
  return match.acquiredAtMs === null
    ? 'unknown'
    : termOf(holdingDays(match.acquiredAtMs, match.disposedAtMs), longTermDays);
}

function add(totals: Totals, match: LotMatch): void {
  countPart(totals.review, {
    ...match,
    unknownCost: match.unknownCost === true,
    withdrawal: match.withdrawal === true,
  });
  // A withdrawal beyond the holdings realizes nothing: counted beside the sums only.
  if (match.withdrawal === true) return;
  totals.matches++;
  totals.quantity = plus(totals.quantity, match.quantity);
  const costBasis = reportedCostBasis(match);
  if (match.proceeds === null || costBasis === null) {
    totals.unpriced++;
    return;
  }
  totals.proceeds = plus(totals.proceeds, match.proceeds);
  totals.cost = plus(totals.cost, costBasis);
}

function row(level: string, coin: string, term: Term, t: Totals, settings: LotSettings): ReportRow {
  return {
    cells: [
      level,
      coin,
      term,
      String(t.matches),
      level === 'coin' ? plain(t.quantity) : null,
      plain(t.proceeds),
      plain(t.cost),
      plain(minus(t.proceeds, t.cost)),
      String(t.unpriced),
      settings.method,
      settings.currency,
      String(settings.longTermDays),
      ...reviewCells(t.review, level === 'coin'),
    ],
    flag: t.unpriced > 0 ? UNPRICED : null,
  };
}

const COLUMNS = [
  text('level'),
  text('coin'),
  text('term'),
  decimal('matches'),
  decimal('quantity'),
  decimal('proceeds'),
  decimal('cost_basis'),
  decimal('gain'),
  decimal('unpriced_matches'),
  text('method'),
  text('valuation_currency'),
  decimal('long_term_days'),
  ...REVIEW_COUNT_COLUMNS,
];

/**
 * The holding-period split of realized-gains: per coin and term (short: held at most
 * --long-term-days days; long: longer; unknown: sold beyond the holdings), then per term over all
 * coins (the values share one currency; quantities do not add up across coins and are left
 * empty). Sums are exact and cover the priced matches only; `unpriced_matches` counts the rest,
 * which realized-gains lists. The same walk as realized-gains, so the totals are its rows' sums.
 */
export function realizedGainsSummaryReportWith(openBook: OpenBook): ComputedReportDefinition {
  return {
    name: 'realized-gains-summary',
    title: 'Realized gains summary',
    description:
      'realized gains of the period per coin and holding term (short, long by --long-term-days), with totals per term',
    streams: GAINS_WALK_STREAMS,
    closedPositionsBeforeLedger: true,
    // A gap anywhere before the period loses lots, and so cost bases: the whole history must be synced.
    coverage: 'history',
    accepts: { coin: true, includePending: false, lots: true, valuation: true },
    columns: COLUMNS,
    kind: 'computed',
    async *rows(params, db) {
      const settings = lotSettings(params);
      const byCoin = new Map<string, Record<Term, Totals>>();
      const overall: Record<Term, Totals> = { short: empty(), long: empty(), unknown: empty() };
      for await (const event of gainsEvents(params, db, settings, openBook)) {
        if (event.kind !== 'disposal') continue;
        const match = event.match;
        if (params.coin !== undefined && match.coin !== params.coin) continue;
        let totals = byCoin.get(match.coin);
        if (totals === undefined) {
          totals = { short: empty(), long: empty(), unknown: empty() };
          byCoin.set(match.coin, totals);
        }
        const term = termOfMatch(match, settings.longTermDays);
        add(totals[term], match);
        add(overall[term], match);
      }
      const coins = [...byCoin.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const coin of coins) {
        for (const term of TERMS) {
          const totals = byCoin.get(coin)![term];
          if (totals.matches > 0 || !totals.review.withdrawnBeyond.isZero()) {
            yield row('coin', coin, term, totals, settings);
          }
        }
      }
      for (const term of TERMS) {
        if (overall[term].matches > 0 || term !== 'unknown') yield row('total', '', term, overall[term], settings);
      }
      yield* coinsAwayRows(db, params, COLUMNS, settings);
    },
  };
}

export const realizedGainsSummaryReport = realizedGainsSummaryReportWith(openStoredBook);
